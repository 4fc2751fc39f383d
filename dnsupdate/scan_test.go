package dnsupdate

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/miekg/dns"
)

// TestScanKeepsCacheHot reads 30 zones once each, as a search does,
// after reading one zone (hot) as a records GET does: read with Snapshot
// (the search's read before Scan) through a cache with room for 5
// snapshots, the reads push hot out of the cache; with Scan, through that
// cache and through one of the default bound (room for every zone), the
// cache holds after the scan what it held before (hot alone: the zones
// scanned are not kept, issue 27), no writer is created, hot is answered
// again without a transfer, and once hot changed on named a scan of it
// replaces its cached snapshot in place, adding nothing. Failed before
// (Scan kept the zones read while the cache had room: 5 snapshots
// through the small cache, 30 through the default one).
func TestScanKeepsCacheHot(t *testing.T) {
	var zones []string
	for i := range 30 {
		zones = append(zones, fmt.Sprintf("scan%d.example", i))
	}
	d, u := fakeUpdater(t, zones...)
	ctx := context.Background()
	for _, c := range []struct {
		scan  bool
		small bool
	}{{false, true}, {true, true}, {true, false}} {
		u := NewUpdater(u.Client())
		hot, err := u.Snapshot(ctx, zones[0])
		if err != nil {
			t.Fatal(err)
		}
		if c.small {
			u.cache.max = 5 * snapshotSize(hot)
		}
		bytes0, kept0 := held(u)
		for _, z := range zones[1:] {
			read := u.Snapshot
			if c.scan {
				read = u.Scan
			}
			if _, err := read(ctx, z); err != nil {
				t.Fatal(err)
			}
		}
		bytes, kept := held(u)
		u.cache.mu.Lock()
		entries, cached := len(u.cache.zones), u.cache.bytes
		u.cache.mu.Unlock()
		hotKept := u.cache.current(zones[0]) == hot
		if !c.scan {
			if hotKept {
				t.Fatal("read with Snapshot, the hot zone stayed: the contrast shows nothing")
			}
			continue
		}
		if !hotKept || bytes != bytes0 || kept != kept0 || cached != bytes0 || entries != 1 || writerCount(u) != 0 || u.Transfers() != int64(len(zones)) {
			t.Fatalf("scan (small cache %v): hot zone kept %v, %d snapshots of %d bytes held (%d of %d before the scan), %d entries, %d writers, %d transfers",
				c.small, hotKept, kept, bytes, kept0, bytes0, entries, writerCount(u), u.Transfers())
		}
		if s, err := u.Scan(ctx, zones[0]); err != nil || s != hot || u.Transfers() != int64(len(zones)) {
			t.Fatalf("the hot zone scanned again: %v, %d transfers", err, u.Transfers())
		}
	}
	// hot changed on named: a scan reads it and replaces the cached
	// snapshot, the only entry still.
	u = NewUpdater(u.Client())
	hot, err := u.Snapshot(ctx, zones[0])
	if err != nil {
		t.Fatal(err)
	}
	soa := dns.Copy(hot.SOA).(*dns.SOA)
	soa.Serial++
	added, err := dns.NewRR("new." + zones[0] + ". 300 IN A 192.0.2.99")
	if err != nil {
		t.Fatal(err)
	}
	d.Change(zones[0], soa, added)
	s, err := u.Scan(ctx, zones[0])
	if err != nil {
		t.Fatal(err)
	}
	u.cache.mu.Lock()
	entries, cached := len(u.cache.zones), u.cache.bytes
	u.cache.mu.Unlock()
	if s.Serial() != soa.Serial || u.cache.current(zones[0]) != s || entries != 1 || cached != snapshotSize(s) {
		t.Fatalf("hot changed, scanned: serial %d (want %d), cached %v, %d entries, %d bytes", s.Serial(), soa.Serial, u.cache.current(zones[0]) == s, entries, cached)
	}
}

// TestScanRootZone: the root zone is read by Scan as any other (its
// origin is ".", not ".."): failed before (the pooled AXFR asked "..").
func TestScanRootZone(t *testing.T) {
	ns, u := startUpdater(t, "scan.test")
	path, err := ns.WriteZone(".", "$TTL 300\n. IN SOA ns1.example. hostmaster. 5 3600 600 86400 300\n. IN NS ns1.example.\nns1.example. IN A 127.0.0.1\n")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("addzone", ".", fmt.Sprintf(`{ type primary; file %q; };`, path)); err != nil {
		t.Fatalf("addzone: %v %s", err, out)
	}
	s, err := u.Scan(context.Background(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if s.Serial() != 5 || len(s.RRs) != 3 {
		t.Fatalf("root zone: serial %d, %d records", s.Serial(), len(s.RRs))
	}
}

// keepIfRoomBefore is what Scan did with a snapshot it transferred
// before it stopped filling the cache (a copy, for BenchmarkScanHeap):
// kept as the least recently used when the cache held none of the zone
// or an older one, and had room for it without dropping another.
func (c *snapshotCache) keepIfRoomBefore(zone string, s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	max := c.max
	if max == 0 {
		max = cacheBytesMax
	}
	e := c.zones[zone]
	size := snapshotSize(s)
	if e != nil && e.snap != nil {
		return // as refresh does, which Scan still calls
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
	if c.lru.next == nil {
		c.lru.next, c.lru.prev = &c.lru, &c.lru
	}
	e.next, e.prev = &c.lru, c.lru.prev
	c.lru.prev.next = e
	c.lru.prev = e
	c.seeds.drop(zone)
}

// BenchmarkScanHeap reads every zone of a fake named (dnstest) of N
// hosting zones once with Scan, as a PowerDNS search does (the RRsets of
// one zone in a hundred built, as for a match), after records GETs of
// 200 of them (Snapshot), with the default cache bound, and prints the
// heap held afterwards (after a collection) two ways in the same run: as
// the scan left it before (each snapshot it transferred kept while the
// cache had room: keepIfRoomBefore) and as it leaves it now (none kept),
// with the snapshots the cache holds. Run with
// go test ./dnsupdate -run '^$' -bench BenchmarkScanHeap -benchtime 1x.
func BenchmarkScanHeap(b *testing.B) {
	for _, zones := range []int{2_000, 20_000} {
		b.Run(fmt.Sprint(zones), func(b *testing.B) {
			var names []string
			for i := range zones {
				names = append(names, fmt.Sprintf("zone-%d.example", i))
			}
			_, u0 := fakeUpdater(b, names...)
			ctx := context.Background()
			// The fake's TCP connections close after 128 queries
			// (miekg/dns's default), named's do not: a read on a closed
			// one is asked again.
			retry := func(read func(context.Context, string) (*Snapshot, error), z string) *Snapshot {
				s, err := read(ctx, z)
				for try := 0; err != nil && try < 3; try++ {
					s, err = read(ctx, z)
				}
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			heap := func(before bool) (mb float64, kept int) {
				u := NewUpdater(u0.Client())
				defer u.Close()
				base := heapNow()
				for i := 0; i < zones; i += zones / 200 {
					retry(u.Snapshot, names[i]).RRsets()
				}
				for i, z := range names {
					s := retry(u.Scan, z)
					if before {
						u.cache.keepIfRoomBefore(z, s)
					}
					if i%100 == 0 {
						s.RRsets()
					}
				}
				mb = float64(int64(heapNow())-int64(base)) / (1 << 20)
				_, kept = held(u)
				runtime.KeepAlive(u)
				return
			}
			for range b.N {
				old, k0 := heap(true)
				now, k1 := heap(false)
				b.Logf("%d zones of 9 records scanned after 200 records GETs, default %d MiB bound: heap %.1f MB as before (%d snapshots cached), %.1f MB now (%d cached): %.2fx",
					zones, cacheBytesMax>>20, old, k0, now, k1, now/old)
				b.ReportMetric(old, "MB-before")
				b.ReportMetric(now, "MB-now")
				b.ReportMetric(now/old, "ratio")
			}
		})
	}
}
