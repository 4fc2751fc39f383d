package zoneservice

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DefaultWatchEvery is how often WatchRestarts asks named for its status.
const DefaultWatchEvery = 2 * time.Second

// WatchRestarts runs until ctx ends. Every interval (DefaultWatchEvery
// when 0) it asks named for its status; when named's boot time is not the
// one this process saw last (the service's Directory remembers it) (named restarted, or this process just
// started), or named could not be asked since the last answer, it runs
// HealAfterRestart. Its control commands run on contexts derived from
// ctx (a front end marks ctx to keep them out of its command log).
func (s *Service) WatchRestarts(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultWatchEvery
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	down := false
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
			down = true
			continue
		}
		// named's boot time is remembered by the directory, so that a
		// new Service of it (a config reload) does not take it for a
		// restart.
		last, seen := s.directory().sawBoot(st.BootTime)
		if seen && last == st.BootTime && !down {
			continue
		}
		down = false
		why := "named restarted (boot time " + st.BootTime + ")"
		if !seen {
			why = "first look at named since this process started"
		}
		s.HealAfterRestart(ctx, why)
	}
}

// HealAfterRestart repairs what a restart of named leaves behind, in
// this order:
//
//   - a full Reconcile: operations a restart interrupted are settled (a
//     delete named forgot because its removal was not yet durable is done
//     again at once), and managed zones named does not load are repaired
//     or reported (an empty journal);
//   - with a catalog, ReconcileCatalog with fix: members equal the index;
//   - rndc notify for the catalog zone and every managed primary zone:
//     named sends NOTIFY to the zone's secondaries (its also-notify and
//     NS), which refresh it. It is queued by named, so this costs well
//     under a millisecond per zone, whatever the secondaries' state. (A
//     secondary that cached named as unreachable while it restarted is
//     not helped: BIND 9.18 drops that entry only for a NOTIFY from the
//     very address and port it transfers from, see docs/reliability.md.)
//
// why is logged. It returns when done or when ctx ends.
func (s *Service) HealAfterRestart(ctx context.Context, why string) {
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, 4*s.timeout())
	rep, err := s.Reconcile(rctx, true)
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
	var zones []string
	if s.Catalog != nil {
		zones = append(zones, s.Catalog.Zone)
	}
	entries, _, _, err := s.Store.List(zonemodel.TypePrimary, "", 0)
	if err != nil {
		s.log().Error("listing the zones to notify after named restarted", zap.Error(err))
	}
	for _, e := range entries {
		zones = append(zones, e.Name)
	}
	notified, failed := 0, 0
	for _, z := range zones {
		if ctx.Err() != nil {
			return
		}
		nctx, cancel := context.WithTimeout(ctx, s.timeout())
		if _, err := s.Control.Notify(nctx, z); err != nil {
			failed++
		} else {
			notified++
		}
		cancel()
	}
	s.log().Info("healed after named restarted", zap.String("why", why), zap.Int("notified", notified), zap.Int("notify_failed", failed),
		zap.Int("fixed", len(rep.Fixed)), zap.Int("problems", len(rep.Problems)), zap.Duration("took", time.Since(start)))
}
