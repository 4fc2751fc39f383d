package dnsupdate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// fakeZone returns the records of zone as a transfer would: its SOA, then
// n A records.
func fakeZone(zone string, serial uint32, n int) []dns.RR {
	rrs := []dns.RR{&dns.SOA{Hdr: dns.RR_Header{Name: zone + ".", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300},
		Ns: "ns." + zone + ".", Mbox: "hostmaster." + zone + ".", Serial: serial, Refresh: 3600, Retry: 600, Expire: 86400, Minttl: 300}}
	for i := range n {
		rrs = append(rrs, &dns.A{Hdr: dns.RR_Header{Name: fmt.Sprintf("h%d.%s.", i, zone), Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 300},
			A: []byte{192, 0, 2, byte(i)}})
	}
	return rrs
}

// read stores a snapshot of zone as Updater.snapshot does after a
// transfer: in the cache, and offered to the zone's writer.
func read(u *Updater, zone string, rrs []dns.RR) *Snapshot {
	s := newSnapshot(zone, rrs)
	e := u.cache.entry(zone)
	u.cacheSet(e, s)
	u.cache.release(e)
	u.writer(zone).offer(s)
	return s
}

// held sums the estimated sizes of the snapshots the cache holds.
func held(u *Updater) (bytes, zones int) {
	u.cache.mu.Lock()
	defer u.cache.mu.Unlock()
	for _, e := range u.cache.zones {
		if e.snap != nil {
			bytes += snapshotSize(e.snap)
			zones++
		}
	}
	return bytes, zones
}

// TestSnapshotCacheBound reads many zones: the snapshots held stay within
// the bound, the least recently used go first, a zone named answered whole
// (Transferred) stays, and the writers forget the dropped ones as their
// model's base.
func TestSnapshotCacheBound(t *testing.T) {
	u := NewUpdater(nil)
	u.cache.max = 1 << 20
	u.Transferred("pinned.test", fakeZone("pinned.test", 7, 10))
	read(u, "hot.test", fakeZone("hot.test", 1, 10))
	for i := range 2000 {
		z := fmt.Sprintf("z%d.test", i)
		read(u, z, fakeZone(z, 1, 20))
		if i%100 == 0 {
			u.cache.get(u.cache.entry("hot.test")) // read often
		}
	}
	bytes, zones := held(u)
	if bytes > u.cache.max || bytes != u.cache.bytes {
		t.Fatalf("cache holds %d bytes (%d zones, counted %d), bound %d", bytes, zones, u.cache.bytes, u.cache.max)
	}
	if zones < 100 {
		t.Fatalf("only %d zones kept within %d bytes", zones, u.cache.max)
	}
	if u.Cached("pinned.test", 7) == nil {
		t.Fatal("the zone named sent whole was dropped: the base of its next difference is lost")
	}
	if u.Cached("hot.test", 1) == nil {
		t.Fatal("a zone read often was dropped before the least recently used")
	}
	if u.Cached("z0.test", 1) != nil {
		t.Fatal("the least recently used zone was kept")
	}
	u.wmu.Lock()
	defer u.wmu.Unlock()
	bases := 0
	for _, zw := range u.writers {
		if zw.known != nil && zw.known.base != nil {
			bases++
		}
	}
	if bases > zones {
		t.Fatalf("writers keep %d snapshots as their model's base, the cache %d", bases, zones)
	}
}

// TestEvictedZoneReadAgain drops a zone's snapshot from the cache: the next
// read transfers it again and answers named's content, and a write then
// still reports what it changed (read by IXFR, the model's base gone) and
// its serial.
func TestEvictedZoneReadAgain(t *testing.T) {
	const zone = "evict.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "a", Type: "A", Value: "192.0.2.1"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	n := u.Transfers()
	u.cache.max = snapshotSize(first) + 1
	read(u, "other.test", fakeZone("other.test", 1, 50)) // evicts zone
	if u.Cached(zone, first.Serial()) != nil {
		t.Fatal("zone not evicted")
	}
	zw := u.writer(zone)
	zw.mu.Lock()
	base := zw.known != nil && zw.known.base != nil
	zw.mu.Unlock()
	if base {
		t.Fatal("the writer kept the evicted snapshot as its model's base")
	}
	again, err := u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	if u.Transfers() != n+1 || again == first || again.Serial() != first.Serial() ||
		!slices.EqualFunc(again.RRsets(), first.RRsets(), func(a, b RRset) bool {
			return a.Name == b.Name && a.Type == b.Type && a.TTL == b.TTL && slices.Equal(a.Values, b.Values)
		}) {
		t.Fatalf("read again: %d transfers (was %d), %v vs %v", u.Transfers(), n, again.RRsets(), first.RRsets())
	}
	// Evict it again, then write: the change and its serial are reported.
	read(u, "other.test", fakeZone("other.test", 2, 50))
	var applied Applied
	read0 := u.readDiffs.Load()
	res, err := u.Replace(ctx, zone, Replacement{Name: "a", Type: "A", CurrentValue: "192.0.2.1", NewValue: "192.0.2.3"},
		WriteOptions{IfSerial: u32p(first.Serial()), Applied: func(a Applied) { applied = a }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasSerial || res.Serial != first.Serial()+1 || !applied.HasSerial || applied.Serial != res.Serial ||
		u.readDiffs.Load() != read0+1 ||
		!slices.Equal(rdatas(applied.Added, dns.TypeA), []string{"192.0.2.3"}) ||
		!slices.Equal(rdatas(applied.Removed, dns.TypeA), []string{"192.0.2.1"}) {
		t.Fatalf("write after eviction: %+v, applied %+v (diffs read %d, was %d)", res, applied, u.readDiffs.Load(), read0)
	}
}

// BenchmarkCacheHeap prints the heap after reading N zones of M records
// with the cache unbounded (as before) and with the default bound, in the
// same run (go test ./dnsupdate -run '^$' -bench BenchmarkCacheHeap).
func BenchmarkCacheHeap(b *testing.B) {
	const zones, records = 50_000, 20
	heap := func(max int) (uint64, int) {
		u := NewUpdater(nil)
		u.cache.max = max
		for i := range zones {
			z := fmt.Sprintf("z%d.test", i)
			read(u, z, fakeZone(z, 1, records))
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		_, kept := held(u)
		runtime.KeepAlive(u)
		return ms.HeapAlloc, kept
	}
	for range b.N {
		var base runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&base)
		unbounded, n0 := heap(1 << 62)
		runtime.GC()
		bounded, n1 := heap(0)
		mb := func(v uint64) float64 { return float64(v-base.HeapAlloc) / (1 << 20) }
		b.Logf("%d zones of %d records read: heap %.0f MB unbounded (%d snapshots kept), %.0f MB with the default %d MiB bound (%d kept): %.2fx",
			zones, records, mb(unbounded), n0, mb(bounded), cacheBytesMax>>20, n1, mb(bounded)/mb(unbounded))
		b.ReportMetric(mb(unbounded), "MB-unbounded")
		b.ReportMetric(mb(bounded), "MB-bounded")
		b.ReportMetric(mb(bounded)/mb(unbounded), "ratio")
	}
}
