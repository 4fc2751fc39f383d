package dnsupdate

import (
	"context"
	"fmt"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestReadsKeepNoWriters reads many zones, as a PowerDNS search or
// records GETs do, through a cache that holds few of them: no zone
// writer is created for a zone only read, and no cache entry is left for
// a zone whose snapshot the cache dropped. A write after a read still
// starts from the cached snapshot (its writer's CNAME index and model).
func TestReadsKeepNoWriters(t *testing.T) {
	const zones = 30
	ns, u := startUpdater(t, "z0.test")
	for i := 1; i < zones; i++ {
		z := fmt.Sprintf("z%d.test", i)
		path, err := ns.WriteZone(z, testbind.MinimalZone(z, 1))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := ns.RNDC("addzone", z, fmt.Sprintf(`{ type primary; file %q; allow-update { key %q; }; };`, path, testbind.TSIGKeyName)); err != nil {
			t.Fatalf("addzone: %v %s", err, out)
		}
	}
	ctx := context.Background()
	first, err := u.Snapshot(ctx, "z0.test")
	if err != nil {
		t.Fatal(err)
	}
	u.cache.max = 5 * snapshotSize(first)
	for i := range zones {
		if _, err := u.Snapshot(ctx, fmt.Sprintf("z%d.test", i)); err != nil {
			t.Fatal(err)
		}
	}
	u.wmu.Lock()
	writers := len(u.writers)
	u.wmu.Unlock()
	u.cache.mu.Lock()
	entries := len(u.cache.zones)
	u.cache.mu.Unlock()
	_, kept := held(u)
	if writers != 0 || entries != kept || kept > 5 {
		t.Fatalf("after reading %d zones: %d zone writers, %d cache entries for %d snapshots kept", zones, writers, entries, kept)
	}
	last := fmt.Sprintf("z%d.test", zones-1)
	n := u.Transfers()
	if _, err := u.Add(ctx, last, zonemodel.Record{Name: "a", Type: "A", Value: "192.0.2.1"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	zw := u.writer(last)
	zw.mu.Lock()
	index, base := zw.index != nil, zw.known != nil
	zw.mu.Unlock()
	if !index || !base || u.Transfers() != n {
		t.Fatalf("a write after a read: CNAME index %v, model %v, %d transfers (was %d)", index, base, u.Transfers(), n)
	}
}
