package dnsupdate

import (
	"context"
	"fmt"
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
