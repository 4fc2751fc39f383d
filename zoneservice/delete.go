package zoneservice

import (
	"context"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Deleted describes a deleted zone (zonemodel.Deleted).
type Deleted = zonemodel.Deleted

// DeleteOptions are a delete's choices (zonemodel.DeleteOptions).
type DeleteOptions = zonemodel.DeleteOptions

// Delete deletes the zone: see the package comment. A zone not created
// through the API is deleted only when opts.Unmanaged confirms it
// (ErrUnmanaged otherwise), and only from named (`delzone` without
// -clean; its files are left alone); a zone of named.conf, which delzone
// cannot delete durably, is refused (ErrNamedConf). The catalog zone
// cannot be deleted (ErrCatalogZone).
func (s *Service) Delete(ctx context.Context, name string, opts DeleteOptions) (*Deleted, error) {
	if s.IsCatalogZone(name) {
		return nil, newErr(ErrCatalogZone, name, "", "zone "+name+" is the catalog zone", nil)
	}
	res, err := s.deleteZone(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	if s.Updater != nil {
		s.Updater.Forget(name)
	}
	s.inventoryForget(name)
	s.recordZone(ctx, history.ZoneDeleted, name, false)
	return res, nil
}

// deleteZone is Delete's work.
func (s *Service) deleteZone(ctx context.Context, name string, opts DeleteOptions) (*Deleted, error) {
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	pending, _, _ := s.Store.PendingIntent(name)
	settled, err := s.settle(ctx, name)
	if err != nil {
		return nil, err
	}
	if pending.Op == zonestore.IntentDelete && settled != "" {
		// A retry of a delete whose outcome was unknown: now done.
		return &Deleted{Managed: true, Durable: true, Settled: settled}, nil
	}
	entry, managed, err := s.Store.Get(name)
	if err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	}
	if !managed {
		return s.deleteUnmanaged(ctx, name, settled, opts)
	}

	// Where named keeps the zone's keys: only named knows, and only
	// until the zone is deleted.
	keyDir := ""
	if zc, err := s.Control.ShowZoneStatement(ctx, name); err == nil {
		keyDir = keyDirOf(zc)
	}
	in := s.newIntent(zonestore.IntentDelete, name)
	in.KeyDir = keyDir
	if err := s.Store.Begin(in); err != nil {
		return nil, newErr(ErrStorage, name, "", "recording the intent to delete zone "+name, err)
	}
	cctx, cancel := s.commandContext(ctx, in)
	defer cancel()
	// The file whose disappearance tells that named's removal is
	// durable: the zone directory's, or an adopted zone's own.
	exists := func() (bool, error) { return s.Store.HasFile(name) }
	if entry.File != "" {
		exists = func() (bool, error) { return s.Store.Exists(entry.File) }
	}
	hadFile, _ := exists()
	text, err := s.Control.DelZone(cctx, name, true)
	switch {
	case err == nil:
	case rndc.IsNotFound(err):
		// named no longer has it: nothing of named to wait for.
		hadFile = false
	case rndc.OutcomeUnknown(err):
		return nil, newErr(ErrOutcomeUnknown, name, "delzone", "named did not answer delzone for zone "+name+", so whether it deleted the zone is unknown", err)
	default:
		s.abandon(name)
		return nil, s.commandErr(name, "delzone", err)
	}
	durable := true
	if hadFile {
		durable = s.waitFor(ctx, exists)
	} else if err == nil {
		// A secondary never transferred has no file whose removal would
		// tell: named's removal cannot be confirmed.
		durable = false
	}
	if herr := s.zoneDeleted(ctx, name); herr != nil {
		_ = s.Store.Remove(name)
		return nil, newErr(ErrHook, name, "", "zone "+name+" was deleted from named but the delete is not complete", herr)
	}
	if !durable {
		if err := s.Store.Remove(name); err != nil {
			return nil, newErr(ErrStorage, name, "", "removing zone "+name+" from the index", err)
		}
		return &Deleted{Details: text, Managed: true, Durable: false, Settled: settled}, nil
	}
	removed := s.removeAll(name, in.KeyDir)
	if err := s.Store.Complete(name, nil, true); err != nil {
		return nil, newErr(ErrStorage, name, "", "removing zone "+name+" from the index", err)
	}
	return &Deleted{Details: text, Managed: true, Durable: true, Removed: removed, Settled: settled}, nil
}

// deleteUnmanaged deletes a zone not created through the API from named
// only (`delzone` without -clean: its files are left alone), when opts
// confirm it and the zone is not one of named.conf.
func (s *Service) deleteUnmanaged(ctx context.Context, name, settled string, opts DeleteOptions) (*Deleted, error) {
	st, err := s.Control.ZoneStatus(ctx, name)
	switch {
	case err == nil && !st.Reconfigurable:
		return nil, newErr(ErrNamedConf, name, "", "zone "+name+" is configured in named.conf, which delzone cannot change durably (named adds it again at its next reconfig or restart): remove its statement from named.conf and run rndc reconfig", nil)
	case err != nil && !notLoaded(err):
		return nil, s.commandErr(name, "zonestatus", err)
	}
	if !opts.Unmanaged {
		return nil, newErr(ErrUnmanaged, name, "", "zone "+name+" is not managed by the API (it was added to named outside it); confirm its delete with confirm=unmanaged", nil)
	}
	text, err := s.Control.DelZone(ctx, name, false)
	if err != nil {
		return nil, s.commandErr(name, "delzone", err)
	}
	return &Deleted{Details: text, Durable: true, Settled: settled}, nil
}

// commandErr classifies a control command's failure.
func (s *Service) commandErr(name, command string, err error) *Error {
	switch {
	case rndc.OutcomeUnknown(err):
		return newErr(ErrOutcomeUnknown, name, command, "named did not answer "+command+" for zone "+name+", so its outcome is unknown", err)
	case rndc.IsNotFound(err):
		return newErr(ErrNotFound, name, command, "zone "+name+" not found", err)
	default:
		return newErr(ErrControl, name, command, "", err)
	}
}

// removeAll removes what a deleted zone left: its files in the zone
// directory and its DNSSEC keys in its key directory, the zone directory
// and KeyDirs.
func (s *Service) removeAll(name, keyDir string) []string {
	removed, err := s.Store.RemoveZoneFiles(name)
	if err != nil {
		s.log().Error("removing zone files", zap.String("zone", name), zap.Error(err))
	}
	seen := map[string]bool{filepath.Clean(s.Store.Dir()): true}
	for _, d := range append([]string{keyDir}, s.KeyDirs...) {
		if d == "" || seen[filepath.Clean(d)] {
			continue
		}
		seen[filepath.Clean(d)] = true
		r, err := zonestore.RemoveKeyFiles(d, name)
		if err != nil {
			s.log().Error("removing key files", zap.String("zone", name), zap.String("dir", d), zap.Error(err))
		}
		removed = append(removed, r...)
	}
	return removed
}
