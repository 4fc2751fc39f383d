package integration

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkZoneListDiscovery measures the list of every zone named serves
// (GET /zones?all=true) at ZONEAPI_BENCH_UNMANAGED zones of named.conf
// (default 9,000) plus ZONEAPI_BENCH_MANAGED zones created through the
// API (default 1,000), against the default list of the API's own zones
// in the same run, rounds interleaved: a page of 100 at a random cursor
// of each, and the whole list filtered to the unmanaged zones. It also
// times what the inventory costs named and the API: one read of the
// statistics channel (/json/v1/zones, all zones), and the first list
// after Caddy starts, which reads it and asks zonestatus once per zone
// to learn where each comes from.
func BenchmarkZoneListDiscovery(b *testing.B) {
	unmanaged, managed := envInt("ZONEAPI_BENCH_UNMANAGED", 9000), envInt("ZONEAPI_BENCH_MANAGED", 1000)
	var conf strings.Builder
	for i := range unmanaged {
		z := fmt.Sprintf("u%05d.disc", i)
		fmt.Fprintf(&conf, "zone %q { type primary; file \"conf/%s.zone\"; };\n", z, z)
	}
	ns := testbind.Start(b, &testbind.Options{
		ExtraConfig: conf.String(),
		BeforeStart: func(s *testbind.Server) error {
			if err := os.MkdirAll(filepath.Join(s.Dir, "conf"), 0o755); err != nil {
				return err
			}
			for i := range unmanaged {
				z := fmt.Sprintf("u%05d.disc", i)
				if err := os.WriteFile(filepath.Join(s.Dir, "conf", z+".zone"), []byte(testbind.MinimalZone(z, 1)), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	})
	extra := "statistics_channel " + ns.StatsAddr
	c := startCaddy(b, ns, caddyOpts{extra: extra})
	var wg sync.WaitGroup
	work := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if r := c.do("POST", "/api/v1/zones", zoneBody(fmt.Sprintf("m%05d.disc", i))); r.status != http.StatusCreated {
					b.Errorf("create: %d %s", r.status, r.raw)
				}
			}
		}()
	}
	for i := range managed {
		work <- i
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}

	// The statistics channel itself, as the inventory reads it.
	var size int
	statsRead := timeEach(20, func(int) {
		resp, err := http.Get("http://" + ns.StatsAddr + "/json/v1/zones")
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		size = len(body)
	})
	// The first list of every zone: the inventory's first read and the
	// zonestatus of each zone (a fresh Caddy).
	c.Stop()
	c = startCaddy(b, ns, caddyOpts{extra: extra})
	t0 := time.Now()
	r := c.do("GET", "/api/v1/zones?all=true&limit=1", nil)
	cold := time.Since(t0)
	if r.status != 200 || r.body["total"] != float64(unmanaged+managed) {
		b.Fatalf("first list: %d total %v: %.300s", r.status, r.body["total"], r.raw)
	}

	const rounds, perRound = 10, 20
	var base, all, unmanagedOnly []time.Duration
	get := func(path string, want float64) time.Duration {
		t0 := time.Now()
		r := c.do("GET", path, nil)
		d := time.Since(t0)
		if r.status != 200 || r.body["total"] != want {
			b.Fatalf("%s: %d total %v: %.300s", path, r.status, r.body["total"], r.raw)
		}
		return d
	}
	for range rounds {
		for range perRound {
			base = append(base, get(fmt.Sprintf("/api/v1/zones?limit=100&cursor=m%05d.disc", rand.IntN(managed)), float64(managed)))
		}
		for range perRound {
			all = append(all, get(fmt.Sprintf("/api/v1/zones?all=true&limit=100&cursor=u%05d.disc@_default", rand.IntN(unmanaged)), float64(unmanaged+managed)))
		}
		for range perRound {
			unmanagedOnly = append(unmanagedOnly, get(fmt.Sprintf("/api/v1/zones?all=true&managed=false&limit=100&cursor=u%05d.disc@_default", rand.IntN(unmanaged)), float64(unmanaged)))
		}
	}
	sb, sa, su := statsOf(base), statsOf(all), statsOf(unmanagedOnly)
	fmt.Printf("\nzone list at %d zones, %d of them not managed (%d requests each, rounds interleaved):\n", unmanaged+managed, unmanaged, rounds*perRound)
	fmt.Printf("| list (page of 100) | p50 | p99 | p50 vs baseline |\n|---|---|---|---|\n")
	fmt.Printf("| default: the API's %d zones (baseline) | %s | %s | 1.00x |\n", managed, ms(sb.p50), ms(sb.p99))
	fmt.Printf("| all=true: every zone | %s | %s | %.2fx |\n", ms(sa.p50), ms(sa.p99), ratio(sa.p50, sb.p50))
	fmt.Printf("| all=true&managed=false | %s | %s | %.2fx |\n", ms(su.p50), ms(su.p99), ratio(su.p50, sb.p50))
	fmt.Printf("\ninventory costs: one read of the statistics channel (%d zones, %d bytes): p50 %s, p99 %s; "+
		"the first all=true list after start (that read plus one zonestatus per zone): %s\n",
		unmanaged+managed, size, ms(statsRead.p50), ms(statsRead.p99), ms(cold))
	b.ReportMetric(ratio(sa.p50, sb.p50), "all-vs-default-p50-x")
}

// statsOf returns the mean, median and 99th percentile of d.
func statsOf(d []time.Duration) stats {
	s := append([]time.Duration(nil), d...)
	var total time.Duration
	for _, x := range s {
		total += x
	}
	slices.Sort(s)
	return stats{mean: total / time.Duration(len(s)), p50: s[len(s)/2], p99: s[len(s)*99/100]}
}
