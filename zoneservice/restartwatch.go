package zoneservice

import (
	"context"
	"time"
)

// WatchRestartsWhenResolved runs the zone server's restart watch (see
// Server.WatchRestarts) for a front end until ctx ends (zone_api's
// Cleanup): once named's backend can be resolved (backend, tried every
// DefaultWatchEvery), every DefaultWatchEvery it asks named for its
// status and, when named restarted, heals what the restart left behind
// (interrupted operations, zones named does not load, the catalog, and
// secondaries that cached named as unreachable). With views, each view
// other than the default has a watch of its own. zone_api gives a ctx
// whose control commands are not logged one by one (its quiet); the
// healing is.
func WatchRestartsWhenResolved(ctx context.Context, backend func() (*Server, error)) {
	t := time.NewTicker(DefaultWatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b, err := backend()
		if err != nil {
			continue // a request reports it; try again
		}
		b.WatchRestarts(ctx, DefaultWatchEvery)
		return
	}
}
