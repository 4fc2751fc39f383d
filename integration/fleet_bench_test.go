package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// pollUntil polls check for every key until it holds and returns, per
// key, when it first held (one round over the pending keys every 5 ms).
func pollUntil(b testing.TB, keys []string, check func(key string) bool) map[string]time.Time {
	b.Helper()
	seen := make(map[string]time.Time, len(keys))
	deadline := time.Now().Add(5 * time.Minute)
	for len(seen) < len(keys) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, k := range keys {
			if _, ok := seen[k]; ok {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if check(k) {
					mu.Lock()
					seen[k] = time.Now()
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d never held", len(keys)-len(seen), len(keys))
		}
		time.Sleep(5 * time.Millisecond)
	}
	return seen
}

// lagStats turns start and seen times into mean, p50 and p99 lags.
func lagStats(start, seen map[string]time.Time) stats {
	var d []time.Duration
	var total time.Duration
	for k, t0 := range start {
		l := seen[k].Sub(t0)
		d = append(d, l)
		total += l
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	n := len(d)
	return stats{mean: total / time.Duration(n), p50: d[n/2], p99: d[(n*99)/100]}
}

// BenchmarkFleet measures, with a primary and a secondary named and the
// API keeping a catalog the secondary consumes:
//
//   - zone propagation: from POST /zones answered to the zone answering
//     SOA on the secondary, for ZONEAPI_FLEET_ZONES zones (default 100),
//     against the baseline of the same run: the secondary told directly
//     (rndc addzone of a secondary zone on it, after the zone was added on
//     the primary), from that addzone answered to SOA served;
//   - record propagation: from a record add answered by the API to the
//     secondary serving it (NOTIFY, IXFR), against a raw RFC 2136 update
//     sent to the primary, answered to served; ZONEAPI_FLEET_RECORDS each
//     (default 10), one at a time. named's notify-delay (5 s by default)
//     holds back a zone's NOTIFY that follows another within it, so
//     these lags are about 5 s both ways.
//
// It prints p50 and p99 and the ratios; it asserts nothing about time.
func BenchmarkFleet(b *testing.B) {
	n := 100
	if v, err := strconv.Atoi(os.Getenv("ZONEAPI_FLEET_ZONES")); err == nil && v > 0 {
		n = v
	}
	pair, c := startFleet(b)
	p, s := pair.Primary, pair.Secondary
	// Warm up: the first create makes the catalog, which the secondary
	// then transfers for the first time.
	expect(b, c.do("POST", "/api/v1/zones", zoneBody("warm.bench")), http.StatusCreated, "warm-up create")
	pollUntil(b, []string{"warm.bench"}, func(z string) bool { _, ok := soaOn(s, z); return ok })

	// Through the API and the catalog.
	apiStart := map[string]time.Time{}
	var apiZones []string
	for i := 0; i < n; i++ {
		z := fmt.Sprintf("cat%03d.bench", i)
		expect(b, c.do("POST", "/api/v1/zones", zoneBody(z)), http.StatusCreated, "create")
		apiStart[z] = time.Now()
		apiZones = append(apiZones, z)
	}
	apiLag := lagStats(apiStart, pollUntil(b, apiZones, func(z string) bool { _, ok := soaOn(s, z); return ok }))

	// Baseline: the secondary told directly.
	directStart := map[string]time.Time{}
	var directZones []string
	for i := 0; i < n; i++ {
		z := fmt.Sprintf("dir%03d.bench", i)
		path, err := p.WriteZone(z, testbind.MinimalZone(z, 1))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.RNDC("addzone", z, fmt.Sprintf(`{ type primary; file %q; };`, path)); err != nil {
			b.Fatal(err)
		}
		if _, err := s.RNDC("addzone", z, fmt.Sprintf(`{ type secondary; primaries { 127.0.0.1 port %s; }; file "%s.db"; };`, portOf(p.DNSAddr), z)); err != nil {
			b.Fatal(err)
		}
		directStart[z] = time.Now()
		directZones = append(directZones, z)
	}
	directLag := lagStats(directStart, pollUntil(b, directZones, func(z string) bool { _, ok := soaOn(s, z); return ok }))

	// Record propagation, API and raw update, alternating.
	const zone = "cat000.bench"
	m := 10
	if v, err := strconv.Atoi(os.Getenv("ZONEAPI_FLEET_RECORDS")); err == nil && v > 0 {
		m = v
	}
	dc, err := dnsupdate.NewClient(p.DNSAddr, &dnsupdate.TSIGKey{Name: p.TSIGKeyName, Algorithm: p.TSIGAlgorithm, Secret: p.TSIGSecret}, 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer dc.Close()
	recAPIStart, recRawStart := map[string]time.Time{}, map[string]time.Time{}
	recAPISeen, recRawSeen := map[string]time.Time{}, map[string]time.Time{}
	for i := 0; i < m; i++ {
		name := fmt.Sprintf("api%03d", i)
		expect(b, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": name, "type": "A", "value": "192.0.2.1"}), http.StatusCreated, "record add")
		recAPIStart[name] = time.Now()
		recAPISeen[name] = pollUntil(b, []string{name}, func(k string) bool { return len(aOn(s, k+"."+zone)) > 0 })[name]

		name = fmt.Sprintf("raw%03d", i)
		u := new(dns.Msg)
		u.SetUpdate(zone + ".")
		rr, _ := dns.NewRR(name + "." + zone + ". 300 IN A 192.0.2.2")
		u.Insert([]dns.RR{rr})
		if err := dc.Update(context.Background(), zone, u); err != nil {
			b.Fatal(err)
		}
		recRawStart[name] = time.Now()
		recRawSeen[name] = pollUntil(b, []string{name}, func(k string) bool { return len(aOn(s, k+"."+zone)) > 0 })[name]
	}
	recAPILag := lagStats(recAPIStart, recAPISeen)
	recRawLag := lagStats(recRawStart, recRawSeen)

	fmt.Printf("\nfleet propagation, primary + secondary named on loopback, %d zones, %d records each way:\n", n, m)
	fmt.Printf("| what | p50 | p99 | mean | ratio (p50) |\n|---|---|---|---|---|\n")
	fmt.Printf("| POST /zones answered -> SOA on the secondary (catalog) | %s | %s | %s | %.2fx |\n", ms(apiLag.p50), ms(apiLag.p99), ms(apiLag.mean), ratio(apiLag.p50, directLag.p50))
	fmt.Printf("| baseline: rndc addzone on the secondary -> SOA there | %s | %s | %s | 1.00x |\n", ms(directLag.p50), ms(directLag.p99), ms(directLag.mean))
	fmt.Printf("| record add answered by the API -> served by the secondary | %s | %s | %s | %.2fx |\n", ms(recAPILag.p50), ms(recAPILag.p99), ms(recAPILag.mean), ratio(recAPILag.p50, recRawLag.p50))
	fmt.Printf("| baseline: raw RFC 2136 update answered -> served by the secondary | %s | %s | %s | 1.00x |\n", ms(recRawLag.p50), ms(recRawLag.p99), ms(recRawLag.mean))
	b.ReportMetric(apiLag.p50.Seconds()*1000, "zone-p50-ms")
	b.ReportMetric(apiLag.p99.Seconds()*1000, "zone-p99-ms")
	b.ReportMetric(recAPILag.p50.Seconds()*1000, "record-p50-ms")
}

// portOf returns the port of host:port.
func portOf(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i+1:]
		}
	}
	return addr
}
