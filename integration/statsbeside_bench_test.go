package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkReadsBesideStatistics asks whether a read of named's
// statistics channel zone list (what the inventory's refresh reads,
// O(zones) in named) holds up the API's reads that query named on its
// DNS port: the records GET of a zone not read before (an SOA query and
// an AXFR) and a bare AXFR of the same kind of zone. It adds
// ZONEAPI_BESIDE_ZONES zones (default 20,000) by bare addzone, then, in
// alternating windows, times ZONEAPI_BESIDE_SAMPLES reads of each
// (default 40) with named otherwise idle and while another client reads
// /json/v1/zones back to back. Opt-in (ZONEAPI_BESIDE_ZONES set); it
// prints a table and asserts nothing.
func BenchmarkReadsBesideStatistics(b *testing.B) {
	n := envInt("ZONEAPI_BESIDE_ZONES", 0)
	if n <= 0 {
		b.Skip("set ZONEAPI_BESIDE_ZONES=<zones> to run it")
	}
	samples := envInt("ZONEAPI_BESIDE_SAMPLES", 40)
	defer func(d time.Duration) { testbind.StartTimeout = d }(testbind.StartTimeout)
	testbind.StartTimeout = 10 * time.Minute
	ns := testbind.Start(b, nil)
	rc := benchRNDC(b, ns)
	c := startCaddy(b, ns, caddyOpts{handle: "/api*"})
	dir := filepath.Join(ns.Dir, "bare")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	name := func(i int) string { return fmt.Sprintf("r%06d.beside", i) }
	ctx := context.Background()
	parallel(8, 0, n, func(i int) {
		if _, err := rc.AddZone(ctx, bareZone(b, dir, name(i), ns.TSIGKeyName)); err != nil {
			b.Errorf("addzone: %v", err)
		}
	})
	if b.Failed() {
		b.FailNow()
	}
	statsRead := func() time.Duration {
		t0 := time.Now()
		resp, err := http.Get("http://" + ns.StatsAddr + "/json/v1/zones")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	statsAlone := timeEach(3, func(int) { statsRead() }).p50
	next := 0
	fresh := func() string { next++; return name(next - 1) }
	records := func() {
		if r := c.do("GET", "/api/v1/zones/"+fresh()+"/records", nil); r.status != http.StatusOK {
			b.Fatalf("records GET: %d %.200s", r.status, r.raw)
		}
	}
	axfr := func() { transferAll(b, ns, fresh()) }
	type cell struct{ quiet, beside []time.Duration }
	var rec, xfr cell
	var reads atomic.Int64
	window := func(f func(), beside bool) []time.Duration {
		var stop atomic.Bool
		done := make(chan struct{})
		if beside {
			go func() {
				defer close(done)
				for !stop.Load() {
					statsRead()
					reads.Add(1)
				}
			}()
			time.Sleep(20 * time.Millisecond) // the read under way
		} else {
			close(done)
		}
		var d []time.Duration
		for range samples / 4 {
			t0 := time.Now()
			f()
			d = append(d, time.Since(t0))
			time.Sleep(5 * time.Millisecond)
		}
		stop.Store(true)
		<-done
		return d
	}
	for range 4 {
		rec.quiet = append(rec.quiet, window(records, false)...)
		rec.beside = append(rec.beside, window(records, true)...)
		xfr.quiet = append(xfr.quiet, window(axfr, false)...)
		xfr.beside = append(xfr.beside, window(axfr, true)...)
	}
	fmt.Printf("\nBenchmarkReadsBesideStatistics: %d zones; named's statistics zone list alone %s (p50 of 3); %d such reads beside; load average %s\n\n", n, ms(statsAlone), reads.Load(), loadAverage())
	fmt.Printf("| read (zones not read before) | p50, named idle | p50, beside zone-list reads | max idle | max beside |\n|---|---|---|---|---|\n")
	for _, r := range []struct {
		name string
		c    cell
	}{{"records GET (SOA query + AXFR)", rec}, {"bare AXFR", xfr}} {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.name, ms(p50(r.c.quiet)), ms(p50(r.c.beside)), ms(slices.Max(r.c.quiet)), ms(slices.Max(r.c.beside)))
	}
}
