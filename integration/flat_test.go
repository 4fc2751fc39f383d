package integration

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingStats is a reverse proxy in front of named's statistics
// channel that counts the reads of named's zone list it passes (O(zones)
// in named); the restart watch's reads of the server counters
// (/json/v1/server, every 2 s, flat) pass uncounted. It returns the
// proxy's host:port.
func countingStats(t testing.TB, statsAddr string, reads *atomic.Int64) string {
	t.Helper()
	target, _ := url.Parse("http://" + statsAddr)
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/v1/server" {
			reads.Add(1)
		}
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// rndcTotal is how many control commands caddy has sent named so far
// (zoneapi_rndc_commands_total, every command and result).
func rndcTotal(t testing.TB, c *caddy) float64 {
	t.Helper()
	var n float64
	for k, v := range scrape(t, c) {
		if strings.HasPrefix(k, "zoneapi_rndc_commands_total{") {
			n += v
		}
	}
	return n
}

// createZones creates n zones "f<i>.flat" through the API, 8 at a time.
func createZones(t testing.TB, c *caddy, n int) {
	t.Helper()
	var wg sync.WaitGroup
	work := make(chan int)
	var failed atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if r := c.do("POST", "/api/v1/zones", flatZoneBody(fmt.Sprintf("f%06d.flat", i))); r.status != http.StatusCreated {
					if failed.Add(1) < 5 {
						t.Errorf("create f%06d.flat: %d %.200s", i, r.status, r.raw)
					}
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// flatZoneBody is the smallest create request: SOA and one NS with glue.
func flatZoneBody(zone string) map[string]any {
	return map[string]any{
		"zoneName": zone,
		"zoneType": "primary",
		"zoneConfig": map[string]any{
			"ttl":           3600,
			"soa":           map[string]any{"primaryNs": "ns1." + zone + ".", "adminEmail": "hostmaster." + zone + "."},
			"nameServers":   []string{"ns1." + zone + "."},
			"nameServerIps": map[string]string{"ns1." + zone + ".": "192.0.2.53"},
		},
	}
}

// TestReadsStayFlat creates ZONEAPI_FLAT_ZONES zones (default 5,000)
// through the API, restarts Caddy (named keeps running), and counts what
// each kind of read asks of named: control commands (Caddy's own
// zoneapi_rndc_commands_total) and reads of the statistics channel (a
// counting proxy in front of it). Every figure is a budget per request
// that does not depend on the number of zones; background work (the
// start's reconcile, the restart watch's first look, the inventory's
// refresh) runs meanwhile and is counted too, so it must cost O(changes),
// not O(zones). Before the inventory learned a zone's source from the
// index and the restart watch healed only what changed, the first look
// after Caddy's start asked showzone, zonestatus and notify of every zone
// and the first all=true page one zonestatus per zone: some 20,000
// commands at 5,000 zones.
func TestReadsStayFlat(t *testing.T) {
	n := envInt("ZONEAPI_FLAT_ZONES", 5000)
	ns := startNamed(t)
	var reads atomic.Int64
	stats := countingStats(t, ns.StatsAddr, &reads)
	opts := caddyOpts{handle: "/api*", extra: "statistics_channel " + stats + "\n\t\t\tpowerdns"}
	c := startCaddy(t, ns, opts)
	waitFirstLook(t, c)
	t0 := time.Now()
	createZones(t, c, n)
	t.Logf("%d zones created in %v", n, time.Since(t0))
	c.Stop()

	// A new Caddy on the same named and zone directory.
	reads.Store(0)
	c = startCaddy(t, ns, opts)
	waitFirstLook(t, c)
	type phase struct {
		what          string
		requests      int
		perRequest    float64 // control commands per request
		statsReads    int64   // statistics-channel reads in all
		commands      float64
		statsReadsGot int64
	}
	var phases []*phase
	measure := func(what string, requests int, perRequest float64, statsReads int64, run func(i int)) {
		c0, r0 := rndcTotal(t, c), reads.Load()
		for i := range requests {
			run(i)
		}
		p := &phase{what: what, requests: requests, perRequest: perRequest, statsReads: statsReads,
			commands: rndcTotal(t, c) - c0, statsReadsGot: reads.Load() - r0}
		phases = append(phases, p)
	}
	// The start itself: the start-up reconcile and the restart watch's
	// first look, counted from the new Caddy's own counters (it has sent
	// nothing else yet), and however many reads of the statistics
	// channel its inventory made.
	startCmds := rndcTotal(t, c)
	phases = append(phases, &phase{what: "Caddy's start (reconcile, first look at named)", requests: 1, perRequest: 20, statsReads: 2,
		commands: startCmds, statsReadsGot: reads.Load()})
	reads.Store(0)
	zone := func(i int) string { return fmt.Sprintf("f%06d.flat", (i*7919)%n) }
	get := func(path string) {
		if r := c.do("GET", path, nil); r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %.300s", path, r.status, r.raw)
		}
	}
	measure("first all=true page after the start", 1, 4, 1, func(int) { get("/api/v1/zones?all=true&limit=100") })
	measure("all=true page", 20, 0.5, 1, func(i int) {
		get("/api/v1/zones?all=true&limit=100&cursor=" + zone(i) + "@_default")
	})
	measure("list page", 20, 0.5, 0, func(i int) { get("/api/v1/zones?limit=100&cursor=" + zone(i)) })
	measure("zone GET", 20, 2, 0, func(i int) { get("/api/v1/zones/" + zone(i)) })
	// The same zones again: answered from the zone cache, which asks
	// named nothing (zoneservice/zonecache.go; before it, 2 commands a
	// GET).
	measure("zone GET of a zone read before", 20, 0, 0, func(i int) { get("/api/v1/zones/" + zone(i)) })
	measure("records GET", 20, 1, 0, func(i int) { get("/api/v1/zones/" + zone(i) + "/records") })
	pdns := func(path string) {
		req, _ := http.NewRequest("GET", c.Base+path, nil)
		req.Header.Set("X-API-Key", testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	measure("PowerDNS-API zone list", 3, 2, 1, func(int) { pdns("/api/v1/servers/localhost/zones") })
	// The zones the zone GETs above read: the zone cache answers them.
	measure("PowerDNS-API zone GET", 20, 0, 0, func(i int) { pdns("/api/v1/servers/localhost/zones/" + zone(i) + ".?rrsets=false") })

	var b strings.Builder
	fmt.Fprintf(&b, "\n| at %d zones | requests | control commands (budget) | statistics reads (budget) |\n|---|---|---|---|\n", n)
	for _, p := range phases {
		fmt.Fprintf(&b, "| %s | %d | %.0f (%.0f) | %d (%d) |\n", p.what, p.requests, p.commands, p.perRequest*float64(p.requests)+4, p.statsReadsGot, p.statsReads)
	}
	t.Log(b.String())
	for _, p := range phases {
		// 4 commands of slack for the restart watch's status and the
		// like, whatever the number of zones.
		if p.commands > p.perRequest*float64(p.requests)+4 || p.statsReadsGot > p.statsReads {
			t.Errorf("%s: %.0f control commands and %d statistics reads for %d requests at %d zones: work that grows with the number of zones",
				p.what, p.commands, p.statsReadsGot, p.requests, n)
		}
	}
}
