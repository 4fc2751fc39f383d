package module

import (
	"context"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// watchNamed runs the zone server's restart watch (see
// zoneservice.Server.WatchRestarts) for this handler until ctx ends
// (Cleanup): once named's backend can be resolved, every
// zoneservice.DefaultWatchEvery it asks named for its status and, when
// named restarted, heals what the restart left behind (interrupted
// operations, zones named does not load, the catalog, and secondaries
// that cached named as unreachable). Its control commands are not logged
// one by one (quiet); the healing is. With views, each view other than
// the default has a watch of its own.
func watchNamed(ctx context.Context, backend func() (*zoneservice.Server, error)) {
	t := time.NewTicker(zoneservice.DefaultWatchEvery)
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
		b.WatchRestarts(quiet(ctx), zoneservice.DefaultWatchEvery)
		return
	}
}
