package zoneservice

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ThawWait bounds how long Thaw waits for named to report the zone no
// longer frozen.
const ThawWait = 2 * time.Second

// ZoneState is what named and the index tell of a zone
// (zonemodel.ZoneState).
type ZoneState = zonemodel.ZoneState

// Zone reads the zone's state: `rndc zonestatus` and the index entry.
// Errors: ErrStorage (the index), ErrNotFound, ErrControl (command
// "zonestatus") and ErrOutcomeUnknown.
func (s *Service) Zone(ctx context.Context, name string) (*ZoneState, error) {
	entry, managed, err := s.Store.Get(name)
	if err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	}
	zs := &ZoneState{Entry: entry, Managed: managed, File: s.Store.FilePath(name)}
	st, err := s.Control.ZoneStatus(ctx, name)
	if err != nil {
		var re *rndc.Error
		if errors.As(err, &re) && strings.Contains(re.Err+" "+re.Text, "not loaded") {
			zs.Details = Describe(re)
			return zs, nil
		}
		return nil, s.commandErr(name, "zonestatus", err)
	}
	zs.Status, zs.Details = st, st.Raw
	return zs, nil
}

// ZoneStatement reads the zone's statement as named shows it
// (`rndc showzone`). Errors as Zone's, with command "showzone".
func (s *Service) ZoneStatement(ctx context.Context, name string) (*rndc.ZoneStatement, error) {
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	if err != nil {
		return nil, s.commandErr(name, "showzone", err)
	}
	return zc, nil
}

// The states of a zone that named's refusal of a control command
// reports besides ErrExists ("already exists"), ErrFrozen ("already
// frozen"), ErrNotFound and ErrWrongType (zonemodel's); ControlRefusal
// tells them apart.
var (
	ErrNotFrozen  = zonemodel.ErrNotFrozen
	ErrNotDynamic = zonemodel.ErrNotDynamic
	ErrDynamic    = zonemodel.ErrDynamic
)

// ControlRefusal classifies named's refusal of a control command (an
// *rndc.Error, possibly wrapped): zonemodel.ControlRefusal.
func ControlRefusal(err error) error { return zonemodel.ControlRefusal(err) }

// Describe formats the error named answered a control command with:
// zonemodel.DescribeControl.
func Describe(err error) string { return zonemodel.DescribeControl(err) }

// Reload reloads the zone from its file (`rndc reload`) under the zone's
// lock and returns named's answer. Errors: ErrBusy, ErrNotFound,
// ErrControl, ErrOutcomeUnknown.
func (s *Service) Reload(ctx context.Context, name string) (string, error) {
	text, err := s.zoneCommand(ctx, name, "reload", s.Control.Reload)
	if err == nil {
		// What the reload changed was made in the file, outside the
		// API: recorded as such, then the reload.
		s.noticedNow(ctx, name)
		s.recordZone(ctx, history.ZoneReloaded, name, false)
	}
	return text, err
}

// Freeze stops the zone's dynamic updates and writes its journal into its
// file (`rndc freeze`), under the zone's lock. Errors as Reload's.
func (s *Service) Freeze(ctx context.Context, name string) (string, error) {
	text, err := s.zoneCommand(ctx, name, "freeze", s.Control.Freeze)
	if err == nil {
		s.recordZone(ctx, history.ZoneFrozen, name, false)
	}
	return text, err
}

// Thaw enables the zone's dynamic updates again (`rndc thaw`, which
// reloads the file), under the zone's lock, and then waits (at most
// ThawWait) until named reports the zone no longer frozen: thaw returns
// before named has reloaded the zone and accepts updates again, and a
// record change sent in between would be refused as if the zone were
// still frozen. Errors as Reload's.
func (s *Service) Thaw(ctx context.Context, name string) (string, error) {
	text, err := s.zoneCommand(ctx, name, "thaw", func(ctx context.Context, zone string) (string, error) {
		text, err := s.Control.Thaw(ctx, zone)
		if err == nil {
			s.waitThawed(ctx, zone)
		}
		return text, err
	})
	if err == nil {
		s.noticedNow(ctx, name)
		s.recordZone(ctx, history.ZoneThawed, name, false)
	}
	return text, err
}

// Retransfer makes a secondary zone transfer from its primaries now
// (`rndc retransfer`). named refuses it for a primary zone (ErrControl,
// whose cause rndc.IsWrongZoneType recognises).
func (s *Service) Retransfer(ctx context.Context, name string) (string, error) {
	text, err := s.Control.Retransfer(ctx, name)
	s.statusChanged(name, true)
	if err != nil {
		return "", s.commandErr(name, "retransfer", err)
	}
	return text, nil
}

// ServerStatus returns named's `rndc status`. Errors: ErrControl and
// ErrOutcomeUnknown (command "status").
func (s *Service) ServerStatus(ctx context.Context) (*rndc.ServerStatus, error) {
	st, err := s.Control.Status(ctx)
	if err != nil {
		return nil, s.commandErr("", "status", err)
	}
	return st, nil
}

// zoneCommand runs a zone's control command under its lock, so that it
// does not interleave with other changes to the zone.
func (s *Service) zoneCommand(ctx context.Context, name, command string, run func(context.Context, string) (string, error)) (string, error) {
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return "", err
	}
	defer unlock()
	text, err := run(ctx, name)
	if err != nil {
		return "", s.commandErr(name, command, err)
	}
	return text, nil
}

// waitThawed waits (at most ThawWait) until named reports the zone no
// longer frozen.
func (s *Service) waitThawed(ctx context.Context, zone string) {
	deadline := time.Now().Add(ThawWait)
	for delay := time.Millisecond; time.Now().Before(deadline); delay = min(2*delay, 50*time.Millisecond) {
		st, err := s.Control.ZoneStatus(ctx, zone)
		if err != nil || !st.Frozen {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}

// ListZones lists the index of managed zones in name order, one page at
// a time: at most limit entries (0: all) after cursor, only of type typ
// when it is set; it returns the cursor of the next page ("" after the
// last) and how many zones there are. Errors: ErrStorage.
func (s *Service) ListZones(typ, cursor string, limit int) ([]zonestore.Entry, string, int, error) {
	entries, next, total, err := s.Store.List(typ, cursor, limit)
	if err != nil {
		return nil, "", 0, newErr(ErrStorage, "", "", "reading the zone index", err)
	}
	return entries, next, total, nil
}
