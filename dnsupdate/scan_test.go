package dnsupdate

import (
	"context"
	"fmt"
	"testing"
)

// TestScanKeepsCacheHot reads 30 zones once each, as a search does,
// through a cache with room for 5 snapshots, after reading one zone
// (hot): read with Snapshot (the search's read before Scan), the reads
// push hot out of the cache; with Scan, hot stays, the zones read are
// kept only while there is room (no cache entry for the others), no
// writer is created, and a zone kept is answered again without a
// transfer.
func TestScanKeepsCacheHot(t *testing.T) {
	var zones []string
	for i := range 30 {
		zones = append(zones, fmt.Sprintf("scan%d.example", i))
	}
	_, u := fakeUpdater(t, zones...)
	ctx := context.Background()
	for _, scan := range []bool{false, true} {
		u := NewUpdater(u.Client())
		hot, err := u.Snapshot(ctx, zones[0])
		if err != nil {
			t.Fatal(err)
		}
		u.cache.max = 5 * snapshotSize(hot)
		for _, z := range zones[1:] {
			read := u.Snapshot
			if scan {
				read = u.Scan
			}
			if _, err := read(ctx, z); err != nil {
				t.Fatal(err)
			}
		}
		bytes, kept := held(u)
		u.cache.mu.Lock()
		entries := len(u.cache.zones)
		u.cache.mu.Unlock()
		hotKept := u.cache.current(zones[0]) == hot
		if !scan {
			if hotKept {
				t.Fatal("read with Snapshot, the hot zone stayed: the contrast shows nothing")
			}
			continue
		}
		if !hotKept || bytes > u.cache.max || entries != kept || writerCount(u) != 0 || u.Transfers() != int64(len(zones)) {
			t.Fatalf("scan: hot zone kept %v, %d of %d bytes, %d entries for %d snapshots, %d writers, %d transfers",
				hotKept, bytes, u.cache.max, entries, kept, writerCount(u), u.Transfers())
		}
		if _, err := u.Scan(ctx, zones[1]); err != nil || u.Transfers() != int64(len(zones)) {
			t.Fatalf("a zone kept scanned again: %v, %d transfers", err, u.Transfers())
		}
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
