package zoneservice

import (
	"context"
	"strconv"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Actions a reconcile reports.
const (
	// ActionCompletedCreate: a create whose addzone named executed was
	// recorded in the index.
	ActionCompletedCreate = "completed-create"
	// ActionRolledBackCreate: a create named did not execute; its file
	// was removed.
	ActionRolledBackCreate = "rolled-back-create"
	// ActionCompletedDelete: a delete was finished (named's removal
	// confirmed, files and index entry removed).
	ActionCompletedDelete = "completed-delete"
	// ActionAdopted: a zone named serves with its file in the zone
	// directory, unknown to the index, was added to the index.
	ActionAdopted = "adopted"
	// ActionMovedAside: a zone file no zone of named uses was moved to
	// .zoneapi/orphaned/.
	ActionMovedAside = "moved-aside"
	// ActionDiscardedTornIndex: a torn last line of the index log (never
	// acknowledged) was discarded.
	ActionDiscardedTornIndex = "discarded-torn-index-line"
	// ActionRemovedEmptyJournal: named did not load a managed primary
	// zone because its journal was empty (named was killed as it created
	// it); the journal, which held nothing, was removed and the zone
	// reloaded.
	ActionRemovedEmptyJournal = "removed-empty-journal"
	// ProblemNotLoaded: named has a managed primary zone but does not
	// load it (Detail says why, as far as it is known).
	ProblemNotLoaded = "zone-not-loaded"
)

// Fix is one thing a reconcile did, or could not do yet (the zone
// model's type, which front ends read).
type Fix = zonemodel.ReconcileFix

// Report is what a reconcile found and fixed (the zone model's type,
// which front ends read).
type Report = zonemodel.ReconcileReport

// Reconcile settles every pending intent, discards a torn index line,
// adopts zones named serves with their file in the zone directory that
// the index does not know, and moves aside zone files that no zone of
// named uses. With full, it also asks named about every indexed zone and
// reports those it does not serve. It returns the report and the first
// error that stopped it (a report is returned either way).
func (s *Service) Reconcile(ctx context.Context, full bool) (*Report, error) {
	rep := &Report{Fixed: []Fix{}, Pending: []Fix{}, Problems: []Fix{}}
	n, err := s.Store.RepairIndex()
	if err != nil {
		return rep, newErr(ErrStorage, "", "", "repairing the zone index", err)
	}
	if n > 0 {
		rep.Fixed = append(rep.Fixed, Fix{Action: ActionDiscardedTornIndex, Detail: strconv.FormatInt(n, 10) + " bytes"})
		s.log().Warn("discarded a torn line of the zone index", zap.Int64("bytes", n))
	}
	intents, err := s.Store.PendingIntents()
	if err != nil {
		return rep, newErr(ErrStorage, "", "", "reading pending intents", err)
	}
	for _, in := range intents {
		if err := ctx.Err(); err != nil {
			return rep, newErr(ErrBusy, "", "", "reconcile interrupted", err)
		}
		s.settleLocked(ctx, in.Name, rep)
	}

	files, err := s.Store.ZoneFiles()
	if err != nil {
		return rep, newErr(ErrStorage, "", "", "listing the zone directory", err)
	}
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return rep, newErr(ErrBusy, "", "", "reconcile interrupted", err)
		}
		s.checkFile(ctx, name, rep)
	}

	if full {
		entries, _, _, err := s.Store.List("", "", 0)
		if err != nil {
			return rep, newErr(ErrStorage, "", "", "reading the zone index", err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return rep, newErr(ErrBusy, "", "", "reconcile interrupted", err)
			}
			s.checkIndexed(ctx, e, rep)
		}
		s.keepNotLoaded(rep)
	}
	return rep, nil
}

// checkIndexed asks named about one indexed zone (showzone, and
// zonestatus for a primary) and adds to rep what is wrong with it.
func (s *Service) checkIndexed(ctx context.Context, e zonestore.Entry, rep *Report) {
	rep.Checked++
	zc, err := s.Control.ShowZoneStatement(ctx, e.Name)
	switch {
	case err == nil:
		f, t := fileOf(zc), zc.Type()
		switch {
		case e.File != "" && f == e.File:
			// An adopted zone, its file where it was.
		case f != s.Store.FilePath(e.Name):
			rep.Problems = append(rep.Problems, Fix{Zone: e.Name, Action: "indexed-zone-other-file", Detail: "named serves it with file " + f})
		case t == "primary" || t == "master":
			s.checkLoaded(ctx, e.Name, rep)
		}
	case rndc.IsNotFound(err):
		if _, pending, _ := s.Store.PendingIntent(e.Name); !pending {
			rep.Problems = append(rep.Problems, Fix{Zone: e.Name, Action: "indexed-zone-not-served", Detail: "named does not serve this indexed zone"})
		}
	default:
		rep.Pending = append(rep.Pending, Fix{Zone: e.Name, Action: "check", Detail: err.Error()})
	}
}

// keepNotLoaded keeps the zones rep found not loaded, for the status.
func (s *Service) keepNotLoaded(rep *Report) {
	notLoaded := []Fix{}
	for _, p := range rep.Problems {
		if p.Action == ProblemNotLoaded {
			notLoaded = append(notLoaded, p)
		}
	}
	s.notLoaded.Store(&notLoaded)
}

// settleLocked settles one zone's pending intent under its lock and adds
// the result to rep.
func (s *Service) settleLocked(ctx context.Context, name string, rep *Report) {
	unlock, err := s.lock(ctx, name)
	if err != nil {
		rep.Pending = append(rep.Pending, Fix{Zone: name, Action: "settle", Detail: err.Error()})
		return
	}
	defer unlock()
	rep.Checked++
	in, ok, _ := s.Store.PendingIntent(name)
	action, err := s.settle(ctx, name)
	switch {
	case err != nil && ok:
		rep.Pending = append(rep.Pending, Fix{Zone: name, Action: in.Op, Detail: err.Error()})
	case err != nil:
		rep.Problems = append(rep.Problems, Fix{Zone: name, Action: "settle", Detail: err.Error()})
	case action != "":
		rep.Fixed = append(rep.Fixed, Fix{Zone: name, Action: action})
	}
}

// checkFile looks at one zone file of the zone directory: a zone the index
// does not know and no intent is about is adopted when named serves it
// with this file, and the file moved aside when named does not know it.
func (s *Service) checkFile(ctx context.Context, name string, rep *Report) {
	if _, found, err := s.Store.Get(name); err != nil || found {
		return
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return
	}
	defer unlock()
	if _, found, err := s.Store.Get(name); err != nil || found {
		return
	}
	if _, pending, err := s.Store.PendingIntent(name); err != nil || pending {
		return
	}
	rep.Checked++
	path := s.Store.FilePath(name)
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	switch {
	case err == nil:
		if fileOf(zc) != path {
			return // a zone of named's own configuration, or unrelated
		}
		if err := s.Store.Put(zonestore.Entry{Name: name, Type: zc.Type(), Created: s.now()}); err != nil {
			rep.Problems = append(rep.Problems, Fix{Zone: name, Action: ActionAdopted, Detail: err.Error()})
			return
		}
		rep.Fixed = append(rep.Fixed, Fix{Zone: name, Action: ActionAdopted, Detail: "named serves it with " + path})
		s.log().Warn("adopted a zone named serves with its file but the index did not know", zap.String("zone", name))
	case rndc.IsNotFound(err):
		moved, err := s.Store.MoveAside(name)
		if err != nil {
			rep.Problems = append(rep.Problems, Fix{Zone: name, Action: ActionMovedAside, Detail: err.Error()})
			return
		}
		rep.Fixed = append(rep.Fixed, Fix{Zone: name, Action: ActionMovedAside, Detail: path + " -> " + moved})
		s.log().Warn("moved aside a zone file no zone uses", zap.String("zone", name), zap.String("moved_to", moved))
	default:
		rep.Pending = append(rep.Pending, Fix{Zone: name, Action: "check", Detail: err.Error()})
	}
}

// Settle settles the zone's pending intent, if any, under its lock, and
// returns the action taken ("" when there was nothing to do).
func (s *Service) Settle(ctx context.Context, name string) (string, error) {
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return "", err
	}
	defer unlock()
	return s.settle(ctx, name)
}

// settle settles the zone's pending intent from what named reports. The
// caller holds the zone's lock. It returns the action taken, or an
// ErrOutcomeUnknown error while named cannot tell (it cannot be asked, or
// it may still execute a command sent for the intent).
func (s *Service) settle(ctx context.Context, name string) (string, error) {
	in, ok, err := s.Store.PendingIntent(name)
	if err != nil {
		return "", newErr(ErrStorage, name, "", "reading pending intents", err)
	}
	if !ok {
		return "", nil
	}
	if in.File == "" {
		in.File = s.Store.FilePath(name)
	}
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	served := err == nil
	if err != nil && !rndc.IsNotFound(err) {
		return "", newErr(ErrOutcomeUnknown, name, "showzone",
			"an earlier "+in.Op+" of zone "+name+" is unfinished and named cannot be asked about it", err)
	}
	if s.givenUp(in) {
		// Given up by this process, which knows named has nothing of it
		// (see abandon): a create's file is removed, the intent marked.
		if in.Op == zonestore.IntentCreate && !served {
			if err := s.Store.DiscardFile(name); err != nil {
				return "", newErr(ErrStorage, name, "", "removing the file of an undone create", err)
			}
		}
		if err := s.Store.Complete(name, nil, false); err != nil {
			return "", newErr(ErrStorage, name, "", "marking an undone "+in.Op, err)
		}
		s.gaveUp.Delete(name)
		if in.Op != zonestore.IntentCreate {
			return "", nil // a delete named refused: nothing was done
		}
		return ActionRolledBackCreate, nil
	}
	switch in.Op {
	case zonestore.IntentCreate:
		return s.settleCreate(ctx, in, served, zc)
	case zonestore.IntentDelete:
		return s.settleDelete(ctx, in, served)
	}
	s.abandon(name)
	return "", nil
}

func (s *Service) settleCreate(ctx context.Context, in zonestore.Intent, served bool, zc *rndc.ZoneStatement) (string, error) {
	name := in.Name
	if served && fileOf(zc) == in.File {
		typ := in.Type
		if typ == "" {
			typ = zc.Type()
		}
		if err := s.zoneCreated(ctx, name, typ); err != nil {
			return "", newErr(ErrHook, name, "", "completing the create of zone "+name, err)
		}
		if err := s.Store.Complete(name, &zonestore.Entry{Name: name, Type: typ, Created: in.Time, Fingerprint: in.Fingerprint}, false); err != nil {
			return "", newErr(ErrStorage, name, "", "completing the create of zone "+name, err)
		}
		s.log().Info("completed an interrupted create", zap.String("zone", name))
		return ActionCompletedCreate, nil
	}
	if !served && s.now().Before(in.NotAfter) {
		return "", newErr(ErrOutcomeUnknown, name, "addzone",
			"named may still execute the addzone of an earlier create of zone "+name+" until "+in.NotAfter.Format("15:04:05Z07:00"), nil)
	}
	// named did not add the zone (or has another zone of that name, with
	// another file): our file, if written, is not in use; a catalog
	// member an interrupted create may have added goes too.
	if !served {
		if err := s.zoneDeleted(ctx, name); err != nil {
			return "", newErr(ErrHook, name, "", "rolling back the create of zone "+name, err)
		}
	}
	if err := s.Store.DiscardFile(name); err != nil {
		return "", newErr(ErrStorage, name, "", "removing the file of an undone create", err)
	}
	if err := s.Store.Complete(name, nil, false); err != nil {
		return "", newErr(ErrStorage, name, "", "marking an undone create", err)
	}
	s.log().Info("rolled back an interrupted create", zap.String("zone", name))
	return ActionRolledBackCreate, nil
}

func (s *Service) settleDelete(ctx context.Context, in zonestore.Intent, served bool) (string, error) {
	name := in.Name
	if served {
		// delzone never ran, or named restarted before its removal was
		// durable: delete it (again).
		_, err := s.Control.DelZone(ctx, name, true)
		if err != nil && !rndc.IsNotFound(err) {
			if rndc.OutcomeUnknown(err) {
				return "", newErr(ErrOutcomeUnknown, name, "delzone", "named did not answer delzone for zone "+name, err)
			}
			return "", newErr(ErrControl, name, "delzone", "", err)
		}
	}
	if ok, _ := s.Store.HasFile(name); ok {
		// named removes the file once the removal is durable.
		if !s.waitGone(ctx, name) && s.now().Before(in.NotAfter) {
			return "", newErr(ErrOutcomeUnknown, name, "delzone", "named has not yet confirmed the removal of zone "+name, nil)
		}
	}
	if err := s.zoneDeleted(ctx, name); err != nil {
		return "", newErr(ErrHook, name, "", "completing the delete of zone "+name, err)
	}
	s.removeAll(name, in.KeyDir)
	if _, err := s.Store.HasFile(name); err != nil {
		return "", newErr(ErrStorage, name, "", "checking the file of a deleted zone", err)
	}
	if err := s.Store.Complete(name, nil, true); err != nil {
		return "", newErr(ErrStorage, name, "", "completing the delete of zone "+name, err)
	}
	s.log().Info("completed an interrupted delete", zap.String("zone", name))
	return ActionCompletedDelete, nil
}
