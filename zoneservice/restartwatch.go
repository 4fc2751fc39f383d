package zoneservice

import (
	"context"
	"encoding/json"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
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

// StatisticsStatus is the restart watch's status (Service.WatchStatus)
// read from named's statistics channel when there is one: server reads
// its server counters (statschannel.Server, /json/v1/server), of which
// the watch takes the boot time. `rndc status` costs named a walk of every
// zone (it counts the zones, the transfers running and deferred, the SOA
// queries): 0.54-0.66 ms of named's CPU at 300 zones and 4.3-4.6 ms at
// 20,000, every DefaultWatchEvery per view, while the server counters
// cost 0.06-0.23 ms at either (BenchmarkNamedWatchCost, two runs).
// When server is nil (no statistics channel) it is fallback (`rndc
// status`); when a read of the statistics fails, fallback answers that
// time. The boot time is given as `rndc status` prints it (RFC 1123, GMT,
// whole seconds) whichever answered, so that the watch takes neither
// switch for a restart.
func StatisticsStatus(server func(context.Context) ([]byte, error), fallback func(context.Context) (*rndc.ServerStatus, error)) func(context.Context) (*rndc.ServerStatus, error) {
	if server == nil {
		return fallback
	}
	return func(ctx context.Context) (*rndc.ServerStatus, error) {
		if body, err := server(ctx); err == nil {
			var v struct {
				BootTime string `json:"boot-time"`
			}
			if json.Unmarshal(body, &v) == nil {
				if t, err := time.Parse(time.RFC3339Nano, v.BootTime); err == nil {
					return &rndc.ServerStatus{BootTime: t.UTC().Format(rndcTimeFormat)}, nil
				}
			}
		}
		st, err := fallback(ctx)
		if err != nil {
			return nil, err
		}
		if t, perr := time.Parse(rndcTimeFormat, st.BootTime); perr == nil {
			st.BootTime = t.UTC().Format(rndcTimeFormat)
		}
		return st, nil
	}
}

// rndcTimeFormat is how `rndc status` prints a time (BIND's
// isc_time_formathttptimestamp).
const rndcTimeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"
