package dnsupdate

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"

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

// BenchmarkReadHeap reads every zone of a fake named (dnstest) of N
// hosting zones once, as a PowerDNS search does (Snapshot, then its
// RRsets), with the default cache bound, and prints the heap held
// afterwards (after a collection) two ways in the same run: as reads
// left it before (each zone read kept its writer, with the snapshot as
// CNAME index and model base, and its cache entry: emulated by creating
// the writer and holding the entry after each read; the cache's estimate
// is today's in both) and as they leave it now. Run with
// go test ./dnsupdate -run '^$' -bench BenchmarkReadHeap -benchtime 1x.
func BenchmarkReadHeap(b *testing.B) {
	for _, zones := range []int{2_000, 20_000} {
		b.Run(fmt.Sprint(zones), func(b *testing.B) {
			files := make(map[string]string, zones)
			for i := range zones {
				z := fmt.Sprintf("zone-%d.example", i)
				var sb strings.Builder
				for _, rr := range hostingZone(z, 1) {
					sb.WriteString(rr.String() + "\n")
				}
				files[z] = sb.String()
			}
			d := dnstest.NewServer(b, files)
			c, err := NewClient(d.Addr, &TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}, 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			ctx := context.Background()
			heap := func(before bool) (mb float64, writers, entries, kept int) {
				u := NewUpdater(c)
				base := heapNow()
				for i := range zones {
					z := fmt.Sprintf("zone-%d.example", i)
					// The fake's TCP connections close after 128
					// queries (miekg/dns's default), named's do not:
					// a read on a closed one is asked again.
					s, err := u.Snapshot(ctx, z)
					for try := 0; err != nil && try < 3; try++ {
						s, err = u.Snapshot(ctx, z)
					}
					if err != nil {
						b.Fatal(err)
					}
					s.RRsets() // as the search reads them
					if before {
						u.writer(z)
						u.cache.entry(z)
					}
				}
				mb = float64(int64(heapNow())-int64(base)) / (1 << 20)
				u.wmu.Lock()
				writers = len(u.writers)
				u.wmu.Unlock()
				u.cache.mu.Lock()
				entries = len(u.cache.zones)
				u.cache.mu.Unlock()
				_, kept = held(u)
				runtime.KeepAlive(u)
				return
			}
			for range b.N {
				old, w0, e0, k0 := heap(true)
				now, w1, e1, k1 := heap(false)
				b.Logf("%d zones of 9 records read once, default %d MiB bound: heap %.1f MB as before (%d writers, %d cache entries, %d snapshots), %.1f MB now (%d writers, %d entries, %d snapshots): %.2fx",
					zones, cacheBytesMax>>20, old, w0, e0, k0, now, w1, e1, k1, now/old)
				b.ReportMetric(old, "MB-before")
				b.ReportMetric(now, "MB-now")
				b.ReportMetric(now/old, "ratio")
			}
		})
	}
}
