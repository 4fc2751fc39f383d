package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkZoneGetAtScale (issue 27) measures, at ZONEAPI_GET_ZONES zones
// (default 3,000, created through the API), the p50 of
// ZONEAPI_GET_SAMPLES (default 50) of each, interleaved sample by sample
// so that the machine's load weighs on all alike:
//
//   - the zone API's zone GET and the PowerDNS API's (rrsets=false), of a
//     zone not read before (a first read: named is asked zonestatus and
//     showzone) and of the same zone again (cached: named is asked
//     nothing); each API reads zones of its own, since they share the
//     zone cache;
//   - named's own zonestatus and showzone (rndc client), one after the
//     other and both at once (the floor of a first read that sends them
//     concurrently, as the PowerDNS GET does).
//
// It prints each first read's ratio to the two commands' sum and to the
// pair sent at once, and asserts nothing. Run: go test ./integration
// -run '^$' -bench BenchmarkZoneGetAtScale -benchtime 1x
func BenchmarkZoneGetAtScale(b *testing.B) {
	n := envInt("ZONEAPI_GET_ZONES", 3000)
	samples := envInt("ZONEAPI_GET_SAMPLES", 50)
	ns := startNamed(b)
	rc := benchRNDC(b, ns)
	c := startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "log_filter warn\n\t\t\tpowerdns"})
	createZones(b, c, n)
	// Nothing is cached of a zone for 2 s after its create (zoneSettle).
	time.Sleep(2100 * time.Millisecond)
	ctx := context.Background()
	zone := func(i int) string { return fmt.Sprintf("f%06d.flat", (i*7919)%n) }
	get := func(path string) {
		if r := c.do("GET", path, nil); r.status != http.StatusOK {
			b.Fatalf("GET %s: %d %.200s", path, r.status, r.raw)
		}
	}
	pdns := func(path string) {
		req, _ := http.NewRequest("GET", c.Base+path, nil)
		req.Header.Set("X-API-Key", testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	status := func(z string) {
		if _, err := rc.ZoneStatus(ctx, z); err != nil {
			b.Fatal(err)
		}
	}
	show := func(z string) {
		if _, err := rc.ShowZone(ctx, z); err != nil {
			b.Fatal(err)
		}
	}
	const (
		restFirst = iota
		restCached
		pdnsFirst
		pdnsCached
		zonestatus
		showzone
		both
		kinds
	)
	d := make([][]time.Duration, kinds)
	timed := func(k int, f func()) {
		t0 := time.Now()
		f()
		d[k] = append(d[k], time.Since(t0))
	}
	for i := range samples {
		rz, pz, nz := zone(3*i), zone(3*i+1), zone(3*i+2)
		timed(restFirst, func() { get("/api/v1/zones/" + rz) })
		timed(restCached, func() { get("/api/v1/zones/" + rz) })
		timed(pdnsFirst, func() { pdns("/api/v1/servers/localhost/zones/" + pz + ".?rrsets=false") })
		timed(pdnsCached, func() { pdns("/api/v1/servers/localhost/zones/" + pz + ".?rrsets=false") })
		timed(zonestatus, func() { status(nz) })
		timed(showzone, func() { show(nz) })
		timed(both, func() {
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); status(nz) }()
			show(nz)
			wg.Wait()
		})
	}
	p := make([]time.Duration, kinds)
	for k := range d {
		slices.Sort(d[k])
		p[k] = d[k][len(d[k])/2]
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\np50 of %d at %d zones:\n\n| zone API GET, first read | cached | PowerDNS zone GET, first read | cached | `zonestatus` | `showzone` | both at once |\n|---|---|---|---|---|---|---|\n", samples, n)
	fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s |\n", ms(p[restFirst]), ms(p[restCached]), ms(p[pdnsFirst]), ms(p[pdnsCached]), ms(p[zonestatus]), ms(p[showzone]), ms(p[both]))
	sum := p[zonestatus] + p[showzone]
	fmt.Fprintf(&sb, "\nfirst read / (zonestatus + showzone): zone API %.2fx, PowerDNS %.2fx; / both at once: zone API %.2fx, PowerDNS %.2fx; both at once / sum %.2fx\n",
		ratio(p[restFirst], sum), ratio(p[pdnsFirst], sum), ratio(p[restFirst], p[both]), ratio(p[pdnsFirst], p[both]), ratio(p[both], sum))
	b.Log(sb.String())
}
