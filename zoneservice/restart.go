package zoneservice

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// DefaultWatchEvery is how often WatchRestarts asks named for its status.
const DefaultWatchEvery = 2 * time.Second

// WatchRestarts runs until ctx ends. Every interval (DefaultWatchEvery
// when 0) it asks named for its status; when named's boot time is not the
// one this process saw last (the service's Directory remembers it) (named restarted, or this process just
// started), or named could not be asked since the last answer, it runs
// HealAfterRestart; the intents the healing left pending (named could
// not tell yet) are settled again at each later look until none is
// left. Its control commands run on contexts derived from ctx (a front
// end marks ctx to keep them out of its command log).
func (s *Service) WatchRestarts(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchEvery
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	down := false
	// left: the intents the last healing left pending (named could not
	// tell yet, e.g. a create's addzone within its expiry): each look
	// settles them again until none is left, so that they do not wait
	// for a request for their zone or a reconcile.
	var left []string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, s.timeout())
		status := s.Control.Status
		if s.WatchStatus != nil {
			status = s.WatchStatus
		}
		st, err := status(sctx)
		cancel()
		if err != nil {
			// What named said of its zones is not answered as fact
			// while it cannot be asked (zonecache.go).
			down = true
			s.zoneCache().clear()
			continue
		}
		// named's boot time is remembered by the directory, so that a
		// new Service of it (a config reload) does not take it for a
		// restart.
		last, seen := s.directory().sawBoot(st.BootTime)
		if seen && last == st.BootTime && !down {
			if len(left) > 0 {
				left = s.settleAgain(ctx, left)
			}
			continue
		}
		down = false
		s.zoneCache().clear() // what named said of its zones before
		why := "named restarted (boot time " + st.BootTime + ")"
		if !seen {
			why = "first look at named since this process started"
		}
		healed := s.now()
		s.HealAfterRestart(ctx, why)
		left = s.pendingBefore(healed)
	}
}

// pendingBefore returns the zones whose pending intent was recorded by
// t (those of operations begun since settle themselves).
func (s *Service) pendingBefore(t time.Time) []string {
	intents, err := s.Store.PendingIntents()
	if err != nil {
		return nil
	}
	var names []string
	for _, in := range intents {
		if !in.Time.After(t) {
			names = append(names, in.Name)
		}
	}
	return names
}

// settleAgain settles the pending intents of the zones names, each under
// its zone's lock, and returns those still pending.
func (s *Service) settleAgain(ctx context.Context, names []string) []string {
	ctx, cancel := context.WithTimeout(ctx, 4*s.timeout())
	defer cancel()
	rep := &Report{Fixed: []Fix{}, Pending: []Fix{}, Problems: []Fix{}}
	var still []string
	for _, name := range names {
		if ctx.Err() != nil {
			still = append(still, name)
			continue
		}
		s.settleLocked(ctx, name, rep)
		if _, p, err := s.Store.PendingIntent(name); p || err != nil {
			still = append(still, name)
		}
	}
	if len(rep.Fixed)+len(rep.Problems) > 0 {
		s.LogReconcile("settled what the healing after named restarted left pending", rep, nil)
	}
	return still
}

// HealAfterRestart repairs what a restart of named leaves behind, in
// this order:
//
//   - a reconcile: operations a restart interrupted are settled (a delete
//     named forgot because its removal was not yet durable is done again
//     at once), and managed zones named does not load are repaired or
//     reported (an empty journal). With an Inventory, which zones those
//     are is read from one read of named's statistics channel, and only
//     they are asked about (showzone, zonestatus): the work is that of
//     the zones that need it, not of every zone. Without one, every
//     indexed zone is asked about (Reconcile with full);
//   - with a catalog, ReconcileCatalog with fix: members equal the index;
//   - rndc notify for the catalog zone only.
//
// It sends no rndc notify per zone: named itself sends NOTIFY for every
// primary zone it loads at its start (paced by its startup-notify-rate),
// to the same secondaries, from the same address; one rndc notify per
// zone only queued a second NOTIFY behind each of those (100,000 commands
// at 100,000 zones). A secondary that cached named as unreachable while it
// restarted is helped by neither (BIND 9.18 drops that entry only for a
// NOTIFY from the very address and port it transfers from, see
// docs/reliability.md).
//
// why is logged. It returns when done or when ctx ends.
func (s *Service) HealAfterRestart(ctx context.Context, why string) {
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, 4*s.timeout())
	rep, err := s.reconcileAfterRestart(rctx)
	cancel()
	s.LogReconcile("reconcile after named restarted", rep, err)
	if s.Catalog != nil {
		cctx, cancel := context.WithTimeout(ctx, 4*s.timeout())
		crep, err := s.ReconcileCatalog(cctx, true)
		cancel()
		if err != nil {
			s.log().Warn("reconciling the catalog after named restarted failed", zap.Error(err))
		} else if len(crep.Missing)+len(crep.Stray) > 0 {
			s.log().Warn("catalog reconciled after named restarted", zap.Strings("added", crep.Missing), zap.Int("removed", len(crep.Stray)))
		}
	}
	notified, failed := 0, 0
	if s.Catalog != nil && ctx.Err() == nil {
		nctx, cancel := context.WithTimeout(ctx, s.timeout())
		if _, err := s.Control.Notify(nctx, s.Catalog.Zone); err != nil {
			failed++
		} else {
			notified++
		}
		cancel()
	}
	s.log().Info("healed after named restarted", zap.String("why", why), zap.Int("notified", notified), zap.Int("notify_failed", failed),
		zap.Int("fixed", len(rep.Fixed)), zap.Int("problems", len(rep.Problems)), zap.Duration("took", time.Since(start)))
}

// reconcileAfterRestart is HealAfterRestart's reconcile: Reconcile, and
// the check of the indexed zones named does not report loaded in a fresh
// read of its statistics channel (Reconcile with full without an
// Inventory, or when the statistics cannot be read).
func (s *Service) reconcileAfterRestart(ctx context.Context) (*Report, error) {
	if s.Inventory == nil {
		return s.Reconcile(ctx, true)
	}
	snap, err := s.Inventory.RefreshNow(ctx)
	if err != nil {
		s.log().Warn("reading named's statistics after it restarted failed: asking about every zone", zap.Error(err))
		return s.Reconcile(ctx, true)
	}
	rep, err := s.Reconcile(ctx, false)
	if err != nil {
		return rep, err
	}
	entries, _, _, err := s.Store.List("", "", 0)
	if err != nil {
		return rep, newErr(ErrStorage, "", "", "reading the zone index", err)
	}
	view := s.View
	if view == "" {
		view = defaultViewOf(snap)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return rep, newErr(ErrBusy, "", "", "reconcile interrupted", err)
		}
		if z, ok := snap.Find(e.Name, view); ok && (z.HasSerial || z.Type != "primary") {
			rep.Checked++
			continue
		}
		s.checkIndexed(ctx, e, rep)
	}
	s.keepNotLoaded(rep)
	return rep, nil
}
