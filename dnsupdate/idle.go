package dnsupdate

import (
	"context"
	"errors"
	"time"

	"github.com/miekg/dns"
)

// Idle writers are freed. A zone's writer holds its last SOA, its CNAME
// index and what its model knows (known.go): a few hundred bytes, more
// with the index, for every zone written once (22 MB at 100,000 zones,
// issue 27). A writer idle for idleAfter (no write queued, none in
// flight, and no relearnAfter period running) leaves the Updater's map,
// marked freed, at the next sweep (one timer per Updater, running while
// there are writers). A write that took the writer from the map before
// it was freed finds it freed when it queues (enqueue, under the
// writer's lock, where the sweep checked the writer idle), and joins the
// zone's current writer instead (join): there is never more than one
// writer per zone taking writes, so writes stay one at a time.
//
// The zone's next write starts a new writer as a first write does: from
// the zone's cached snapshot, or by reading the SOA. So that the cache
// does not seed it with an SOA the freed writer had moved past (named
// would refuse the pin and the writer read the SOA again: one round trip
// lost), a sweep also drops the zone's cached snapshot when it is older
// than the freed writer's SOA and not pinned: no read could use it
// either (a read asks named the SOA first, and transfers again).

// writerIdleAfter is how long a zone's writer stays idle before it is
// freed (Updater.idleAfter unless set).
const writerIdleAfter = 2 * time.Minute

// errFreed is enqueue's error for a freed writer.
var errFreed = errors.New("zone writer freed")

// join queues w on the zone's writer (enqueue), on the zone's current
// writer when the one it found was freed meanwhile.
func (u *Updater) join(ctx context.Context, zone string, w *write) (*zoneWriter, bool, error) {
	for {
		zw := u.writer(zone)
		if u.beforeEnqueue != nil {
			u.beforeEnqueue()
		}
		lead, err := zw.enqueue(ctx, w)
		if err != errFreed {
			return zw, lead, err
		}
	}
}

// free marks the writer freed and gives back the records its model
// counted. Called with zw.mu held, the writer idle.
func (zw *zoneWriter) free() {
	zw.freed = true
	zw.known.drop(zw.total)
	zw.known = nil
}

// idleFor is Updater.idleAfter or its default.
func (u *Updater) idleFor() time.Duration {
	if u.idleAfter > 0 {
		return u.idleAfter
	}
	return writerIdleAfter
}

// armSweep starts the sweep's timer unless it runs. Called with u.wmu
// held.
func (u *Updater) armSweep() {
	if u.closed {
		return
	}
	switch {
	case u.sweep == nil:
		u.sweep = time.AfterFunc(u.idleFor(), u.sweepIdle)
	case !u.sweeping:
		u.sweep.Reset(u.idleFor())
	}
	u.sweeping = true
}

// sweepIdle frees the writers idle for idleAfter and runs again while
// writers remain.
func (u *Updater) sweepIdle() {
	now := time.Now()
	after := u.idleFor()
	u.wmu.Lock()
	defer u.wmu.Unlock()
	stale := map[string]*dns.SOA{}
	for zone, zw := range u.writers {
		zw.mu.Lock()
		if !zw.busy && len(zw.queue) == 0 && now.Sub(zw.idle) >= after &&
			!now.Before(zw.unpinnedUntil) && !now.Before(zw.noSOAUntil) && !now.Before(zw.noModelUntil) && !now.Before(zw.noIndexUntil) {
			zw.free()
			delete(u.writers, zone)
			u.freed.Add(1)
			if zw.soa != nil {
				stale[zone] = zw.soa
			}
		}
		zw.mu.Unlock()
	}
	u.cache.dropOlder(stale)
	u.sweeping = len(u.writers) > 0 && !u.closed
	if u.sweeping {
		u.sweep.Reset(after)
	}
}

// dropOlder drops the cached snapshot of each zone of soas when it is
// older than the zone's SOA there (RFC 1982) and not pinned.
func (c *snapshotCache) dropOlder(soas map[string]*dns.SOA) {
	if len(soas) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for zone, soa := range soas {
		e := c.zones[zone]
		if e == nil || e.snap == nil || e.pinned || !serialLess(e.snap.Serial(), soa.Serial) {
			continue
		}
		c.unlink(e)
		c.bytes -= e.size
		e.snap, e.size = nil, 0
		c.tidy(e)
	}
}
