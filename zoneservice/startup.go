package zoneservice

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// RetryEvery is how often, at most, a start-up reconcile that failed is
// tried again (by the next request that needs it), so that requests do
// not each wait for a named that does not answer.
const RetryEvery = 5 * time.Second

// retryGate runs an operation until it has succeeded once, trying again
// after a failure at most every RetryEvery. Callers that arrive while it
// runs wait for it.
type retryGate struct {
	done atomic.Bool
	mu   sync.Mutex
	last time.Time
}

// run runs f unless it succeeded already or failed less than RetryEvery
// ago.
func (g *retryGate) run(f func() error) {
	if g.done.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done.Load() || !g.last.IsZero() && time.Since(g.last) < RetryEvery {
		return
	}
	g.last = time.Now()
	g.done.Store(f() == nil)
}

func (s *Service) timeout() time.Duration { return orDefault(s.Timeout, 10*time.Second) }

// ReconcileAtStart runs Reconcile (not full) once per zone directory and
// process (the service's Directory holds its gate, so that it runs at the
// first request whichever config generation serves it), at the first call, and again at later calls (at most every
// RetryEvery) until it succeeds: it completes or undoes what a crash left
// half done before the first request is served. It is bounded by four
// times Timeout, whatever ctx's deadline, and logs what it did.
func (s *Service) ReconcileAtStart(ctx context.Context) {
	s.directory().startup.run(func() error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*s.timeout())
		defer cancel()
		rep, err := s.Reconcile(ctx, false)
		s.LogReconcile("start-up reconcile", rep, err)
		return err
	})
}

// ReconcileCatalogAtStart runs ReconcileAtStart and then, once per
// Service (and again at later calls, at most every RetryEvery, until it
// succeeds), ReconcileCatalog with fix: the catalog then lists exactly
// the managed zones. Without a catalog it does nothing.
func (s *Service) ReconcileCatalogAtStart(ctx context.Context) {
	if s.Catalog == nil || s.catalogStart.done.Load() {
		return
	}
	// The zones' own start-up reconcile first: it settles creates and
	// deletes a crash left half done (running the catalog step of those
	// it completes).
	s.ReconcileAtStart(ctx)
	s.catalogStart.run(func() error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*s.timeout())
		defer cancel()
		rep, err := s.ReconcileCatalog(ctx, true)
		if err != nil {
			s.log().Warn("reconciling the catalog zone at the first request failed; the next request tries again", zap.String("catalog", s.Catalog.Zone), zap.Error(err))
			return err
		}
		s.log().Info("catalog zone reconciled", zap.String("catalog", s.Catalog.Zone), zap.Int("members", rep.Members),
			zap.Strings("added", rep.Missing), zap.Int("removed", len(rep.Stray)))
		return nil
	})
}

// LogReconcile logs a reconcile's report: at error level when it failed,
// warn when it fixed or found something, else debug.
func (s *Service) LogReconcile(msg string, rep *Report, err error) {
	fields := []zap.Field{zap.Int("fixed", len(rep.Fixed)), zap.Int("pending", len(rep.Pending)), zap.Int("problems", len(rep.Problems))}
	switch {
	case err != nil:
		s.log().Error(msg+" failed", append(fields, zap.Error(err))...)
	case len(rep.Fixed)+len(rep.Pending)+len(rep.Problems) > 0:
		s.log().Warn(msg, append(fields, zap.Any("report", rep))...)
	default:
		s.log().Debug(msg, fields...)
	}
}
