package zoneservice

import (
	"context"
	"strings"
	"sync"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
)

// A record change another service of the process makes on a zone whose
// history this service keeps (the external-dns webhook has writers of its
// own) does not take turns with this service's catch-up (Noticed). Once
// named applied it, named's NOTIFY may start the catch-up, which then
// reads the change from named's IXFR before the writer that made it has
// enqueued its entry: the change was recorded as external, without who
// made it (history.Log.EnqueueChanges keeps the first of the two). So
// each record change is registered here, by history and zone, from before
// its UPDATE is sent until its entry is enqueued (or the change failed),
// and the catch-up waits for the changes of another updater in flight
// before it enqueues what it read. It does not wait for its own updater's:
// those wait for the turn the catch-up holds (dnsupdate.Updater.Exclusive),
// and their entries are enqueued in that turn already. The wait is bounded
// by the service's timeout: a change is registered before it has its
// writer's turn, so two services that each catch up on a zone (two
// zone_api handlers with other DNS settings on one zone directory) could
// each wait for a change that waits for the other's turn; after the bound
// the catch-up records what it read, as before.

// inflight holds the record changes in flight, by history and zone.
var inflight = struct {
	sync.Mutex
	m map[inflightKey]map[*inflightWrite]struct{}
}{m: map[inflightKey]map[*inflightWrite]struct{}{}}

type inflightKey struct {
	log        *history.Log
	view, zone string
}

// inflightWrite is one record change in flight: by is the updater that
// sends it, done is closed when it ends.
type inflightWrite struct {
	by   *dnsupdate.Updater
	done chan struct{}
}

// writing registers a record change of zone in flight and returns the
// function that ends it (run it once the change's entry is enqueued or
// the change failed). Without a history it registers nothing.
func (s *Service) writing(zone string) (end func()) {
	if s.History == nil {
		return func() {}
	}
	k := inflightKey{s.History, s.View, strings.TrimSuffix(strings.ToLower(zone), ".")}
	w := &inflightWrite{by: s.Updater, done: make(chan struct{})}
	inflight.Lock()
	set := inflight.m[k]
	if set == nil {
		set = map[*inflightWrite]struct{}{}
		inflight.m[k] = set
	}
	set[w] = struct{}{}
	inflight.Unlock()
	return func() {
		inflight.Lock()
		defer inflight.Unlock()
		if _, ok := inflight.m[k][w]; !ok {
			return
		}
		delete(inflight.m[k], w)
		if len(inflight.m[k]) == 0 {
			delete(inflight.m, k)
		}
		close(w.done)
	}
}

// awaitOtherWriters waits until the record changes of zone that other
// updaters than s's have in flight now have ended, or ctx ends (the
// catch-up then records what it read as external, as before).
func (s *Service) awaitOtherWriters(ctx context.Context, zone string) {
	k := inflightKey{s.History, s.View, zone}
	inflight.Lock()
	var wait []chan struct{}
	for w := range inflight.m[k] {
		if w.by != s.Updater {
			wait = append(wait, w.done)
		}
	}
	inflight.Unlock()
	for _, done := range wait {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}
