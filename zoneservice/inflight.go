package zoneservice

import (
	"context"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// A record change another service of the process makes on a zone whose
// history this service keeps (the external-dns webhook has writers of its
// own) does not take turns with this service's catch-up (Noticed): each is
// registered on the history (history.Log.Writing) from before its UPDATE
// is sent until its entry is enqueued, and the catch-up waits for the
// changes of another updater in flight (history.Log.AwaitOthers) before it
// enqueues what it read. It does not wait for its own updater's: those
// wait for the turn the catch-up holds (dnsupdate.Updater.Exclusive), and
// their entries are enqueued in that turn already. The wait is bounded by
// the service's timeout: a change is registered before it has its
// writer's turn, so two services that each catch up on a zone (two
// zone_api handlers with other DNS settings on one zone directory) could
// each wait for a change that waits for the other's turn; after the bound
// the catch-up records what it read, as before.

// writing registers a record change of zone in flight and returns the
// function that ends it (run it once the change's entry is enqueued or
// the change failed). Without a history it registers nothing.
func (r *Records) writing(zone string) (end func()) {
	if r.history == nil {
		return func() {}
	}
	// Named as the catch-up names it (Noticed): the root zone ".", not
	// the empty name.
	return r.history.Writing(r.view, zonemodel.ZoneOfOrigin(strings.ToLower(zone)), r.updater)
}

// awaitOtherWriters waits until the record changes of zone that other
// updaters than r's have in flight now have ended, or ctx ends (the
// catch-up then records what it read as external, as before).
func (r *Records) awaitOtherWriters(ctx context.Context, zone string) {
	r.history.AwaitOthers(ctx, r.view, zone, r.updater)
}
