package dnsupdate

import (
	"context"

	"github.com/miekg/dns"
)

// Scan returns the zone's content at its current serial, as Snapshot
// does, for a read of every zone in turn (the PowerDNS search). A zone the
// cache holds is asked its SOA and answered from the cache when current,
// without making it the most recently used; any other is transferred at
// once (the transfer begins with the SOA: no query before it) on a pooled
// connection (Client.axfrPooled: no TCP connect per zone), and its
// snapshot kept only when the cache has room for it without dropping
// another's, as the least recently used: a scan of 100,000 zones neither
// pushes the zones read and written since out of the cache nor leaves a
// cache entry per zone read beyond the bound. Like Snapshot it creates
// no writer, and offers the snapshot to the zone's writer if it has one.
func (u *Updater) Scan(ctx context.Context, zone string) (*Snapshot, error) {
	if s := u.cache.current(zone); s != nil {
		soa, err := u.dns.SOA(ctx, zone)
		if err != nil {
			return nil, err
		}
		if dns.IsDuplicate(s.SOA, soa) {
			u.offer(zone, soa, s)
			return s, nil
		}
	}
	rrs, err := u.dns.axfrPooled(ctx, zone)
	if err != nil {
		return nil, err
	}
	s := newSnapshot(zone, rrs)
	if s.SOA == nil {
		return nil, &ServerError{Op: "transfer", Zone: zone, Rcode: dns.RcodeServerFailure}
	}
	u.transfers.Add(1)
	u.cache.keepIfRoom(zone, s)
	u.offer(zone, s.SOA, s)
	return s, nil
}

// keepIfRoom keeps s as the zone's snapshot, least recently used, when
// the cache holds none of the zone or an older one, and has room for it
// without dropping another.
func (c *snapshotCache) keepIfRoom(zone string, s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.max
	if max == 0 {
		max = cacheBytesMax
	}
	e := c.zones[zone]
	size := snapshotSize(s)
	if e != nil && e.snap != nil {
		if !serialLess(e.snap.Serial(), s.Serial()) || c.bytes-e.size+size > max {
			return
		}
		c.bytes += size - e.size
		e.snap, e.size = s, size
		c.seeds.drop(zone)
		return
	}
	if c.bytes+size > max {
		return
	}
	if c.zones == nil {
		c.zones = make(map[string]*zoneSnap)
	}
	if e == nil {
		e = &zoneSnap{zone: zone}
		c.zones[zone] = e
	}
	e.snap, e.size = s, size
	c.bytes += size
	c.linkLast(e)
	c.seeds.drop(zone)
}

// linkLast puts e last in the LRU list (the first dropped). Called with
// c.mu held.
func (c *snapshotCache) linkLast(e *zoneSnap) {
	if c.lru.next == nil {
		c.lru.next, c.lru.prev = &c.lru, &c.lru
	}
	e.next, e.prev = &c.lru, c.lru.prev
	c.lru.prev.next = e
	c.lru.prev = e
}
