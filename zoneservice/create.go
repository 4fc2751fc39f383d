package zoneservice

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Created describes a created zone (zonemodel.Created).
type Created = zonemodel.Created

// Create creates the zone z: see the package comment. fp is the request's
// Fingerprint, with WithKey when it carries an idempotency key ("" when
// not known). When the zone exists and was made by a request of the same
// fp, the result has Existed set (the caller's own earlier request did
// it); otherwise an existing zone is ErrExists, with SameConfig telling
// whether it was made by a request with the same body.
func (s *Service) Create(ctx context.Context, z *zonemodel.Zone, fp string) (*Created, error) {
	name := z.Name
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	settled, err := s.settle(ctx, name)
	if err != nil {
		return nil, err
	}
	if c, err := s.existing(name, fp, settled); c != nil || err != nil {
		return c, err
	}
	path := s.Store.FilePath(name)

	data, zs, err := s.render(z, path)
	if err != nil {
		return nil, err
	}
	return s.createLocked(ctx, z, fp, data, zs, settled, history.ZoneCreated)
}

// existing returns, for a create of the zone name with the fingerprint
// fp, the answer when the index already holds the zone: Created with
// Existed (fp made it) or ErrExists; nil, nil when the index does not
// know the zone.
func (s *Service) existing(name, fp, settled string) (*Created, error) {
	e, found, err := s.Store.Get(name)
	if err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	}
	if !found {
		return nil, nil
	}
	if fp != "" && e.Fingerprint == fp {
		return &Created{File: s.Store.FilePath(name), Existed: true, Settled: settled}, nil
	}
	xerr := newErr(ErrExists, name, "", "zone "+name+" already exists", nil)
	xerr.SameConfig = SameBody(e.Fingerprint, fp)
	return nil, xerr
}

// createLocked creates the zone z, whose lock the caller holds and which
// the index does not know: it records the intent, writes the file data
// (primary zones), runs addzone with the statement zs, runs the hook and
// indexes the zone, undoing what it did when a step fails; once done it
// records the history entry of type event (history.ZoneCreated, or
// ZoneImported for Import and Copy).
func (s *Service) createLocked(ctx context.Context, z *zonemodel.Zone, fp string, data []byte, zs *rndc.ZoneStatement, settled, event string) (*Created, error) {
	name := z.Name
	path := s.Store.FilePath(name)
	in := s.newIntent(zonestore.IntentCreate, name)
	in.Type, in.Fingerprint = z.Type, fp
	cctx, cancel := s.commandContext(ctx, in)
	defer cancel()

	// The intent must be durable before named is asked to add the zone;
	// the file, which only this process knows of until then, may be
	// written meanwhile: both fsyncs run at once. (A crash that leaves the
	// file without the intent leaves a file no zone uses, which the
	// reconciler moves aside.)
	begun := make(chan error, 1)
	go func() { begun <- s.Store.Begin(in) }()
	var fileErr error
	wrote := false
	if z.Type == zonemodel.TypePrimary {
		fileErr = s.createFile(cctx, name, data)
		wrote = fileErr == nil
	} else if ok, _ := s.Store.HasFile(name); ok {
		// A file a secondary would use: whose is it? Ask named.
		fileErr = s.clearStaleFile(cctx, name, path)
	}
	if err := <-begun; err != nil {
		if wrote {
			_ = s.Store.DiscardFile(name)
		}
		return nil, newErr(ErrStorage, name, "", "recording the intent to create zone "+name, err)
	}
	if fileErr != nil {
		s.abandon(name)
		return nil, fileErr
	}

	text, err := s.addZone(cctx, z, path, zs)
	if err != nil {
		return nil, err
	}

	if herr := s.zoneCreated(cctx, name, z.Type); herr != nil {
		if uerr := s.undoCreate(ctx, name, true); uerr != nil {
			return nil, undoFailed(name, "its catalog step failed ("+herr.Error()+")", uerr)
		}
		return nil, newErr(ErrHook, name, "", "zone "+name+" was not created", herr)
	}
	if err := s.Store.CompleteCreate(name, &zonestore.Entry{Name: name, Type: z.Type, Created: s.now(), Fingerprint: fp}); err != nil {
		if uerr := s.undoCreate(ctx, name, s.hasHook()); uerr != nil {
			return nil, undoFailed(name, "recording it in the index failed ("+err.Error()+")", uerr)
		}
		return nil, newErr(ErrStorage, name, "", "recording zone "+name+" in the index", err)
	}
	if signing(zs) {
		s.awaitKeys(ctx, name)
	} else if z.Type == zonemodel.TypePrimary && s.Updater != nil && s.History != nil {
		// The zone's content at its first serial, for the first change
		// made elsewhere should named answer its IXFR with the whole
		// zone (fullDiff). A signed zone's is not its file.
		s.Updater.Seed(name, z.Serial, data)
	}
	if servesFileSerial(z, zs) {
		// named serves the file just written, at its serial: no need to
		// ask it (an SOA query, which waits behind named's other
		// addzones).
		s.recordZoneAt(ctx, event, name, z.Serial)
	} else {
		s.recordZone(ctx, event, name, true)
	}
	return &Created{File: path, Details: text, Settled: settled}, nil
}

// servesFileSerial reports whether named, once it added the zone z with
// the statement zs, serves z's file as written, at z.Serial: a primary
// zone whose statement says dnssec-policy none and has no inline-signing,
// which named's signer therefore does not maintain, whose SOA is the
// file's until a change. A statement without dnssec-policy inherits
// named.conf's (options or view), which the API does not see: such a
// zone may be signed, its serial moved by the signer, so named is asked.
func servesFileSerial(z *zonemodel.Zone, zs *rndc.ZoneStatement) bool {
	if z.Type != zonemodel.TypePrimary || zs.Type() != "primary" {
		return false
	}
	if _, ok := zs.Get("inline-signing"); ok {
		return false
	}
	v, ok := zs.Get("dnssec-policy")
	if !ok {
		return false
	}
	p, _ := v.Text()
	return p == "none"
}

// undoFailed is the error of a create that named executed, whose next
// step failed (why) and whose undo failed too (uerr): whether the zone
// ends up existing is unknown. Its intent stays pending and is settled,
// like any other unknown outcome, from what named then reports: completed
// when named serves the zone with its file, undone when it does not.
func undoFailed(name, why string, uerr error) *Error {
	return newErr(ErrOutcomeUnknown, name, "delzone", "named added zone "+name+", then "+why+", and undoing the addzone failed, so whether the zone will exist is unknown", uerr)
}

// render returns the zone's file (primary zones only) and the statement
// addzone is given for it (see AddZoneStatement).
func (s *Service) render(z *zonemodel.Zone, path string) (data []byte, zs *rndc.ZoneStatement, err error) {
	if z.Type == zonemodel.TypePrimary {
		if data, err = z.RenderFile(); err != nil {
			return nil, nil, newErr(ErrInvalid, z.Name, "", "rendering zone "+z.Name, err)
		}
	}
	return data, AddZoneStatement(z, path, s.UpdateKey, s.Store.Dir()), nil
}

// addZone runs addzone for the zone z with the statement zs, once
// its intent is recorded and its file written, and returns named's
// answer. When named refused the zone or has another zone of that name,
// the file written for it is removed (unless named uses it) and the
// intent abandoned; when named did not answer, both stay for settling.
func (s *Service) addZone(ctx context.Context, z *zonemodel.Zone, path string, zs *rndc.ZoneStatement) (string, error) {
	name := z.Name
	text, err := s.Control.AddZone(ctx, zs)
	switch {
	case err == nil:
		return text, nil
	case rndc.OutcomeUnknown(err):
		return "", newErr(ErrOutcomeUnknown, name, "addzone", "named did not answer addzone for zone "+name+", so whether it added the zone is unknown", err)
	case rndc.IsAlreadyExists(err):
		// Ours if it uses our file (our command executed twice, say);
		// else a zone not created through this API.
		if zc, serr := s.Control.ShowZoneStatement(ctx, name); serr == nil && fileOf(zc) == path {
			return "", nil
		}
		if z.Type == zonemodel.TypePrimary {
			s.removeIfUnused(ctx, name, path)
		}
		s.abandon(name)
		return "", newErr(ErrExists, name, "addzone", "zone "+name+" already exists in named (not created through this API)", err)
	default:
		// named refused it, or it was never sent: named does not use the
		// file written above.
		if z.Type == zonemodel.TypePrimary {
			_ = s.Store.DiscardFile(name)
		}
		s.abandon(name)
		return "", newErr(ErrControl, name, "addzone", "", err)
	}
}

// createFile writes the zone's file exclusively. A file already there that
// no zone of named uses (named says so) is moved aside first.
func (s *Service) createFile(ctx context.Context, name string, data []byte) error {
	_, err := s.Store.CreateFile(name, data)
	if errors.Is(err, zonestore.ErrExists) {
		if err := s.clearStaleFile(ctx, name, s.Store.FilePath(name)); err != nil {
			return err
		}
		_, err = s.Store.CreateFile(name, data)
	}
	if err != nil {
		return newErr(ErrStorage, name, "", "writing the file of zone "+name, err)
	}
	return nil
}

// clearStaleFile handles a zone file that exists although neither the
// index nor a pending intent knows the zone: when named serves the zone
// with it, the zone is adopted into the index and ErrExists returned;
// when named does not know the zone, the file is moved aside.
func (s *Service) clearStaleFile(ctx context.Context, name, path string) error {
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	switch {
	case err == nil:
		if fileOf(zc) == path {
			if perr := s.Store.Put(zonestore.Entry{Name: name, Type: zc.Type(), Created: s.now()}); perr != nil {
				return newErr(ErrStorage, name, "", "adopting zone "+name, perr)
			}
			s.log().Warn("adopted a zone named serves with its file but the index did not know", zap.String("zone", name), zap.String("file", path))
			return newErr(ErrExists, name, "", "zone "+name+" already exists (named serves it with "+path+"; it is now listed)", nil)
		}
		return newErr(ErrExists, name, "", "zone "+name+" already exists in named (not created through this API)", nil)
	case rndc.IsNotFound(err):
		moved, merr := s.Store.MoveAside(name)
		if merr != nil {
			return newErr(ErrStorage, name, "", "moving aside the unused file "+path, merr)
		}
		s.log().Warn("moved aside a zone file no zone uses", zap.String("zone", name), zap.String("file", path), zap.String("moved_to", moved))
		return nil
	case rndc.OutcomeUnknown(err):
		return newErr(ErrOutcomeUnknown, name, "showzone", "asking named whether it uses "+path, err)
	default:
		return newErr(ErrControl, name, "showzone", "", err)
	}
}

// undoCreate removes a zone named added, after a failure that followed
// addzone, and, with hook, takes it out of the Hook's keeping (the catalog
// UPDATE that failed may have been applied, its reply lost). It returns
// nil once the zone is known to be gone; otherwise the intent stays
// pending for the reconciler and the error says why.
func (s *Service) undoCreate(ctx context.Context, name string, hook bool) error {
	ctx = context.WithoutCancel(ctx)
	_, err := s.Control.DelZone(ctx, name, true)
	if err != nil && !rndc.IsNotFound(err) {
		s.log().Error("undoing a create failed; the zone's intent stays pending", zap.String("zone", name), zap.Error(err))
		return err
	}
	if !s.waitGone(ctx, name) {
		s.log().Error("undoing a create: named has not removed the file; the zone's intent stays pending", zap.String("zone", name))
		return errors.New("named has not confirmed the removal of the zone (its file is still there)")
	}
	if hook {
		if herr := s.zoneDeleted(ctx, name); herr != nil {
			// The zone is gone; its catalog member may not be: the
			// catalog reconcile removes it.
			s.log().Error("undoing a create: removing the zone from the catalog failed", zap.String("zone", name), zap.Error(herr))
		}
	}
	s.abandon(name)
	return nil
}

// removeIfUnused removes path unless named serves the zone with it (or
// cannot be asked).
func (s *Service) removeIfUnused(ctx context.Context, name, path string) bool {
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	if err == nil && fileOf(zc) == path || err != nil && !rndc.IsNotFound(err) {
		return false
	}
	return s.Store.DiscardFile(name) == nil
}
