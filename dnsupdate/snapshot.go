package dnsupdate

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Snapshot is a zone's content as read by one AXFR: immutable, shared by
// readers until the zone's serial changes.
type Snapshot struct {
	// Zone is the canonical zone name.
	Zone string
	// SOA is the zone's SOA record.
	SOA *dns.SOA
	// RRs are the records in transfer order, SOA first (not repeated at the
	// end).
	RRs []dns.RR

	byName map[string][]dns.RR // lower-case owner -> records

	setsOnce sync.Once
	sets     []RRset   // sorted, built on first use
	meta     []setMeta // sets[i]'s type and sort key
}

// Serial returns the snapshot's SOA serial.
func (s *Snapshot) Serial() uint32 { return s.SOA.Serial }

// RRset is the records sharing an owner name and a type
// (zonemodel.RRset).
type RRset = zonemodel.RRset

// setMeta is what a Snapshot's RRsets are sorted and filtered by, beside
// each RRset (RRsets, List).
type setMeta struct {
	rrtype uint16
	key    string // canonical sort key
}

func newSnapshot(zone string, rrs []dns.RR) *Snapshot {
	s := &Snapshot{Zone: zone, RRs: rrs, byName: make(map[string][]dns.RR)}
	for _, rr := range rrs {
		h := rr.Header()
		h.Name = strings.ToLower(h.Name)
		if soa, ok := rr.(*dns.SOA); ok && s.SOA == nil {
			s.SOA = soa
		}
		s.byName[h.Name] = append(s.byName[h.Name], rr)
	}
	return s
}

// At returns the records owned by the absolute name.
func (s *Snapshot) At(name string) []dns.RR { return s.byName[strings.ToLower(name)] }

// RRsets returns the zone's RRsets in DNSSEC canonical order of their
// owner names (RFC 4034 §6.1), then by type number.
func (s *Snapshot) RRsets() []RRset {
	s.setsOnce.Do(func() {
		idx := map[string]int{}
		var sets []RRset
		var meta []setMeta
		for _, rr := range s.RRs {
			h := rr.Header()
			k := h.Name + "\x00" + dns.TypeToString[h.Rrtype]
			i, ok := idx[k]
			if !ok {
				i = len(sets)
				idx[k] = i
				sets = append(sets, RRset{Name: h.Name, Type: zonemodel.TypeString(h.Rrtype), TTL: h.Ttl})
				meta = append(meta, setMeta{rrtype: h.Rrtype, key: canonicalKey(h.Name, h.Rrtype)})
			}
			sets[i].Values = append(sets[i].Values, zonemodel.RDataText(rr))
		}
		order := make([]int, len(sets))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return meta[order[a]].key < meta[order[b]].key })
		s.sets, s.meta = make([]RRset, len(sets)), make([]setMeta, len(sets))
		for i, j := range order {
			s.sets[i], s.meta[i] = sets[j], meta[j]
		}
	})
	return s.sets
}

// RRsetsOf returns the RRsets of the records rrs of zone, as a
// Snapshot's RRsets orders them; rrs' owner names are lower-cased.
func RRsetsOf(zone string, rrs []dns.RR) []RRset { return newSnapshot(zone, rrs).RRsets() }

// canonicalKey sorts names by their labels from the root, then by type.
func canonicalKey(name string, t uint16) string {
	labels := dns.SplitDomainName(name)
	var b strings.Builder
	for i := len(labels) - 1; i >= 0; i-- {
		b.WriteString(labels[i])
		b.WriteByte(0)
	}
	b.WriteByte(1)
	b.WriteByte(byte(t >> 8))
	b.WriteByte(byte(t))
	return b.String()
}

// snapshotCache holds the last snapshot of each zone, and the seeds of
// zones created here (baseline.go).
//
// Memory: the snapshots held are bounded by max bytes (an estimate of each,
// snapshotSize; cacheBytesMax unless set); beyond it the least recently
// used zones' snapshots are dropped (a later read transfers the zone again,
// as for a zone never read). Never dropped: the snapshot just set (one zone
// larger than the bound is still kept until another is read), and the
// snapshot of a zone named answered an IXFR with whole (Transferred): it is
// the only base of that zone's next such difference (the history's
// records of an external change). Dropping a snapshot takes nothing from
// a caller holding it (snapshots are immutable); the zone's writer forgets
// it as the base of its model (known.go), whose writes are then read by
// IXFR until the zone is read again.
type snapshotCache struct {
	mu    sync.Mutex
	zones map[string]*zoneSnap
	seeds seedSet // the seeds of zones created here (baseline.go)

	max   int      // bound on bytes (0: cacheBytesMax)
	bytes int      // estimated bytes of the snapshots held
	lru   zoneSnap // sentinel: lru.next is the most recently used
}

// cacheBytesMax is the default bound on the estimated bytes of an
// Updater's cached snapshots (snapshotSize, about the heap they hold):
// room for some 16,000 zones of ten records or one zone of some 200,000 A
// records, against the several hundred MB that reading every zone of a
// 100,000-zone primary once kept (issue 27).
const cacheBytesMax = 64 << 20

type zoneSnap struct {
	zone string
	fill sync.Mutex // one transfer at a time per zone
	snap *Snapshot  // guarded by snapshotCache.mu

	// Guarded by snapshotCache.mu: the LRU list of entries holding a
	// snapshot, the snapshot's estimated size, and whether it is pinned.
	prev, next *zoneSnap
	size       int
	pinned     bool
	// refs counts the callers between entry and release: an entry that
	// none holds and that keeps no snapshot leaves the
	// map (a zone read once and dropped leaves nothing behind).
	refs int
}

// snapshotSize estimates the heap a snapshot holds: the Snapshot, its
// maps and slices, and per record its object, its names and data (as
// unpacked from a transfer), a share of the byName map, and its text and
// sort key in RRsets once built. The constants are fitted to the heap
// measured (TestSnapshotSizeHonest: within 0.9x-1.5x of it from zones of
// two records to zones of hundreds); the earlier 256 + 160 + 3 bytes a
// wire byte counted 0.76x-0.88x of it.
func snapshotSize(s *Snapshot) int {
	n := 512
	for _, rr := range s.RRs {
		n += 200 + 4*dns.Len(rr)
	}
	return n
}

func (c *snapshotCache) entry(zone string) *zoneSnap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.zones == nil {
		c.zones = make(map[string]*zoneSnap)
	}
	e := c.zones[zone]
	if e == nil {
		e = &zoneSnap{zone: zone}
		c.zones[zone] = e
	}
	e.refs++
	return e
}

// release gives back a reference entry returned.
func (c *snapshotCache) release(e *zoneSnap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	c.tidy(e)
}

// tidy takes e out of the map when no caller holds it and it keeps
// nothing. Called with c.mu held.
func (c *snapshotCache) tidy(e *zoneSnap) {
	if e.refs == 0 && e.snap == nil && c.zones[e.zone] == e {
		delete(c.zones, e.zone)
	}
}

func (c *snapshotCache) get(e *zoneSnap) *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.snap != nil {
		c.unlink(e)
		c.link(e)
	}
	return e.snap
}

// set keeps s as e's snapshot unless e holds a newer one, and returns the
// snapshots dropped to stay within the bound.
func (c *snapshotCache) set(e *zoneSnap, s *Snapshot) []*Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.snap == nil || serialLess(e.snap.Serial(), s.Serial()) || e.snap.Serial() == s.Serial() {
		if e.snap != nil {
			c.unlink(e)
			c.bytes -= e.size
		}
		e.snap, e.size = s, snapshotSize(s)
		c.bytes += e.size
		c.link(e)
		c.seeds.drop(e.zone) // the zone's content is known at a serial named served
	}
	return c.evict(e)
}

// evict drops the least recently used snapshots, but keep's and pinned
// ones, while the bytes held pass the bound. Called with c.mu held.
func (c *snapshotCache) evict(keep *zoneSnap) []*Snapshot {
	max := c.max
	if max == 0 {
		max = cacheBytesMax
	}
	var dropped []*Snapshot
	for e := c.lru.prev; c.bytes > max && e != nil && e != &c.lru; {
		prev := e.prev
		if e != keep && !e.pinned {
			dropped = append(dropped, e.snap)
			c.unlink(e)
			c.bytes -= e.size
			e.snap, e.size = nil, 0
			c.tidy(e)
		}
		e = prev
	}
	return dropped
}

// link puts e first in the LRU list; unlink takes it out. Called with
// c.mu held.
func (c *snapshotCache) link(e *zoneSnap) {
	if c.lru.next == nil {
		c.lru.next, c.lru.prev = &c.lru, &c.lru
	}
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

func (c *snapshotCache) unlink(e *zoneSnap) {
	if e.prev == nil {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

// forget drops a zone's snapshot.
func (c *snapshotCache) forget(zone string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seeds.drop(zone)
	if e := c.zones[zone]; e != nil {
		if e.snap != nil {
			c.unlink(e)
			c.bytes -= e.size
		}
	}
	delete(c.zones, zone)
}

// cacheSet is cache.set, and the zone's writer forgets as its model's
// base each snapshot the cache dropped.
func (u *Updater) cacheSet(e *zoneSnap, s *Snapshot) {
	for _, d := range u.cache.set(e, s) {
		u.wmu.Lock()
		zw := u.writers[d.Zone]
		u.wmu.Unlock()
		if zw == nil {
			continue
		}
		zw.mu.Lock()
		if zw.known != nil && zw.known.base == d {
			zw.known.base = nil
		}
		zw.mu.Unlock()
	}
}

// Snapshot returns the zone's content at its current serial. One SOA query
// tells whether the cached snapshot is current; only a changed zone is
// transferred again.
func (u *Updater) Snapshot(ctx context.Context, zone string) (*Snapshot, error) {
	return u.snapshot(ctx, zone, 0)
}

// errTooLarge is snapshot's error for a zone of more than its max records.
var errTooLarge = errors.New("zone larger than the transfer's bound")

// snapshot is Snapshot, giving up with errTooLarge on a transfer of more
// than max records (0: no bound). Every snapshot is offered to the zone's
// writer as its CNAME index, if the zone has a writer: a read creates
// none (a search reads every zone; writer seeds a writer created later
// from the cache).
func (u *Updater) snapshot(ctx context.Context, zone string, max int) (*Snapshot, error) {
	soa, err := u.dns.SOA(ctx, zone)
	if err != nil {
		return nil, err
	}
	e := u.cache.entry(zone)
	defer u.cache.release(e)
	if s := u.cache.get(e); s != nil && dns.IsDuplicate(s.SOA, soa) {
		u.offer(zone, soa, s)
		return s, nil
	}
	e.fill.Lock()
	defer e.fill.Unlock()
	if s := u.cache.get(e); s != nil && !serialLess(s.Serial(), soa.Serial) && dns.IsDuplicate(s.SOA, soa) {
		u.offer(zone, soa, s)
		return s, nil
	}
	rrs, err := u.dns.transferUpTo(ctx, zone, max)
	if errors.Is(err, errTooLarge) {
		if zw := u.existingWriter(zone); zw != nil {
			zw.mu.Lock()
			zw.size = max + 1
			zw.mu.Unlock()
		}
	}
	if err != nil {
		u.offer(zone, soa, nil)
		return nil, err
	}
	s := newSnapshot(zone, rrs)
	if s.SOA == nil {
		return nil, &ServerError{Op: "transfer", Zone: zone, Rcode: dns.RcodeServerFailure}
	}
	u.cacheSet(e, s)
	u.transfers.Add(1)
	u.offer(zone, soa, s)
	return s, nil
}

// offer notes soa in the zone's writer and offers it s (if not nil), if
// the zone has a writer. A writer created meanwhile finds s in the cache
// (writer): looked up after the cache took s, one of the two sees the
// other.
func (u *Updater) offer(zone string, soa *dns.SOA, s *Snapshot) {
	zw := u.existingWriter(zone)
	if zw == nil {
		return
	}
	zw.note(soa, false)
	if s != nil {
		zw.offer(s)
	}
}

// current returns the zone's cached snapshot, nil if none.
func (c *snapshotCache) current(zone string) *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.zones[zone]; e != nil {
		return e.snap
	}
	return nil
}

// MasterFile renders the snapshot as master-file text: an $ORIGIN line,
// then one record per line with absolute names, SOA first.
func (s *Snapshot) MasterFile() []byte {
	var b strings.Builder
	b.WriteString("$ORIGIN " + s.Zone + ".\n")
	for _, rr := range s.RRs {
		b.WriteString(rr.String())
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
