package integration

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkPowerDNSGetAfterList (issue 27) measures the PowerDNS-API zone
// GET (`?rrsets=false`, of zones not read before: named is asked
// zonestatus and showzone) as BenchmarkScale does, at
// ZONEAPI_PDNSGET_ZONES zones (default 20,000; created through the API,
// or with ZONEAPI_PDNSGET_PRELOAD=1 written before named starts as the
// API leaves them: zone file, new-zone database, index entry). Each round
// adds ZONEAPI_PDNSGET_BARE zones (default 400) by bare addzone while
// Caddy is down, starts it and times, p50 and max of
// ZONEAPI_PDNSGET_SAMPLES (default 25) each:
//
//   - GETs from 2.5 s after the start for 5 ms a bare zone and 1 s (its
//     first look at named reads the zone list and classifies the new
//     zones by zonestatus, as a BenchmarkScale checkpoint's refresh);
//   - GETs after that (quiet), three PowerDNS zone lists, GETs right
//     after them, the zone API's GET interleaved;
//   - GETs while the statistics channel lists every zone back to back
//     (as the inventory's refresh and BenchmarkScale's statistics list
//     ask it), named's own zonestatus (rndc client) interleaved, and the
//     restart watch's read of the server counters between the lists.
//
// With each phase the control commands Caddy sent during it. With
// $ZONEAPI_BASELINE_CADDY the rounds alternate between this build and
// that one on the same named (one Caddy at a time),
// ZONEAPI_PDNSGET_ROUNDS rounds each (default 2). With
// ZONEAPI_PDNSGET_DUMP=dir a goroutine dump of Caddy is saved 100 ms
// into the first GET during the zone lists. ZONEAPI_PDNSGET_DUPS=n
// sends named n `rndc null` first (its table of the last 15 minutes'
// control messages, which it walks at each command, as many creates
// leave it). It asserts nothing. Run:
// ZONEAPI_PDNSGET_PRELOAD=1 ZONEAPI_PDNSGET_ZONES=100000 go test
// ./integration -run '^$' -bench BenchmarkPowerDNSGetAfterList
// -benchtime 1x -timeout 1h
func BenchmarkPowerDNSGetAfterList(b *testing.B) {
	n := envInt("ZONEAPI_PDNSGET_ZONES", 20000)
	bare := envInt("ZONEAPI_PDNSGET_BARE", 400)
	rounds := envInt("ZONEAPI_PDNSGET_ROUNDS", 2)
	samples := envInt("ZONEAPI_PDNSGET_SAMPLES", 25)
	dump := os.Getenv("ZONEAPI_PDNSGET_DUMP")
	defer func(d time.Duration) { testbind.StartTimeout = d }(testbind.StartTimeout)
	testbind.StartTimeout = 10 * time.Minute
	preload := os.Getenv("ZONEAPI_PDNSGET_PRELOAD") == "1"
	api := func(i int) string { return fmt.Sprintf("s%06d.scale", i) }
	var topts *testbind.Options
	if preload {
		// The zones as the API leaves them (file, named's new-zone
		// database, index entry), written before named starts: named
		// migrates an NZF file into its NZD at start and loads 100,000
		// zones in some 20 s, where creating them takes 10 min.
		topts = &testbind.Options{BeforeStart: func(s *testbind.Server) error {
			meta := filepath.Join(s.ZoneDir, ".zoneapi")
			if err := os.MkdirAll(meta, 0o755); err != nil {
				return err
			}
			var nzf, idx strings.Builder
			created := time.Now().UTC().Add(-time.Hour)
			for i := range n {
				z := api(i)
				st := bareZone(b, s.ZoneDir, z, s.TSIGKeyName)
				fmt.Fprintf(&nzf, "zone %q %s\n", z, st.Block())
				fmt.Fprintf(&idx, "{\"op\":\"put\",\"name\":%q,\"type\":\"primary\",\"created\":%q}\n", z, created.Format(time.RFC3339Nano))
			}
			if err := os.WriteFile(filepath.Join(s.Dir, "_default.nzf"), []byte(nzf.String()), 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(meta, "index.log"), []byte(idx.String()), 0o644)
		}}
	}
	ns := testbind.Start(b, topts)
	rc := benchRNDC(b, ns)
	opts := caddyOpts{handle: "/api*", extra: "statistics_channel " + ns.StatsAddr + "\n\t\t\tpowerdns"}
	type side struct {
		name string
		c    *caddy
	}
	sides := []*side{{"this build", startCaddy(b, ns, opts)}}
	if bin := os.Getenv("ZONEAPI_BASELINE_CADDY"); bin != "" {
		o := opts
		o.bin = bin
		sides = append(sides, &side{"baseline", newCaddy(b, ns, o)})
	}
	t0 := time.Now()
	parallel(8, 0, map[bool]int{true: 0, false: n}[preload], func(i int) {
		if r := sides[0].c.do("POST", "/api/v1/zones", flatZoneBody(api(i))); r.status != http.StatusCreated {
			b.Errorf("create %s: %d %.200s", api(i), r.status, r.raw)
		}
	})
	if b.Failed() {
		b.FailNow()
	}
	fmt.Printf("%d zones created in %s\n", n, time.Since(t0).Round(time.Second))
	sides[0].c.Stop()
	if dups := envInt("ZONEAPI_PDNSGET_DUPS", 0); dups > 0 {
		// named's table of the control messages of the last 15 minutes,
		// walked at each command, as 100,000 creates leave it.
		t0 := time.Now()
		parallel(8, 0, dups, func(int) {
			if _, err := rc.Command(context.Background(), "null"); err != nil {
				b.Errorf("rndc null: %v", err)
			}
		})
		fmt.Printf("%d rndc null in %s\n", dups, time.Since(t0).Round(time.Second))
	}
	bareDir := filepath.Join(ns.Dir, "bare")
	if err := os.MkdirAll(bareDir, 0o755); err != nil {
		b.Fatal(err)
	}
	bares := 0
	ctx := context.Background()
	addBare := func(k int) {
		parallel(8, bares, bares+k, func(j int) {
			if _, err := rc.AddZone(ctx, bareZone(b, bareDir, fmt.Sprintf("b%06d.bare", j), ns.TSIGKeyName)); err != nil {
				b.Errorf("addzone: %v", err)
			}
		})
		bares += k
	}
	pdns := func(c *caddy, path string) {
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
	commands := func(c *caddy) map[string]float64 {
		out := map[string]float64{}
		for k, v := range scrape(b, c) {
			if rest, ok := strings.CutPrefix(k, "zoneapi_rndc_commands_total{"); ok {
				cmd, _, _ := strings.Cut(strings.TrimPrefix(rest, `command="`), `"`)
				out[cmd] += v
			}
		}
		return out
	}
	delta := func(before, after map[string]float64) string {
		var parts []string
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				parts = append(parts, fmt.Sprintf("%s %.0f", k, d))
			}
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	// pick returns a zone not read before, so that each GET is a first
	// read; once every zone has been read it starts over (and says so),
	// rather than looping for ever when the zones are few.
	used := map[string]bool{}
	pick := func() string {
		if len(used) >= n {
			fmt.Printf("all %d zones read once: later GETs may be cached reads (raise ZONEAPI_PDNSGET_ZONES)\n", n)
			clear(used)
		}
		for {
			if z := api(rand.IntN(n)); !used[z] {
				used[z] = true
				return z
			}
		}
	}
	timed := func(f func()) time.Duration { t := time.Now(); f(); return time.Since(t) }
	type result struct {
		side, phase string
		d           []time.Duration
		cmds        string
		load        string
	}
	var results []result
	loadavg := func() string {
		data, _ := os.ReadFile("/proc/loadavg")
		f := strings.Fields(string(data))
		if len(f) < 3 {
			return "?"
		}
		return strings.Join(f[:3], " ")
	}
	for round := range rounds {
		for k := range sides {
			s := sides[(k+round)%len(sides)]
			// Zones added outside the API while Caddy is down: its first
			// look at named (the restart watch's heal, 2 s after the
			// start) reads named's zone list and asks zonestatus of
			// each new zone (the inventory's classification, at most
			// 200 a second), as a BenchmarkScale checkpoint's refresh
			// does for its bare zones. GETs during it, then after it.
			addBare(bare)
			s.c.Start()
			time.Sleep(2500 * time.Millisecond)
			cl := commands(s.c)
			var learning []time.Duration
			window := time.Duration(bare)*5*time.Millisecond + time.Second
			for t := time.Now(); time.Since(t) < window; {
				learning = append(learning, timed(func() { pdns(s.c, "/api/v1/servers/localhost/zones/"+pick()+".?rrsets=false") }))
			}
			c0 := commands(s.c)
			results = append(results, result{s.name, fmt.Sprintf("PowerDNS GET, %d from 2.5 s after the start for %s", len(learning), window), learning, delta(cl, c0), loadavg()})
			time.Sleep(3 * time.Second)
			c0 = commands(s.c)
			var quiet []time.Duration
			for range samples {
				quiet = append(quiet, timed(func() { pdns(s.c, "/api/v1/servers/localhost/zones/"+pick()+".?rrsets=false") }))
			}
			c1 := commands(s.c)
			results = append(results, result{s.name, "PowerDNS GET, quiet", quiet, delta(c0, c1), loadavg()})
			var lists []time.Duration
			for range 3 {
				lists = append(lists, timed(func() { pdns(s.c, "/api/v1/servers/localhost/zones") }))
			}
			c2 := commands(s.c)
			results = append(results, result{s.name, "PowerDNS list x3", lists, delta(c1, c2), loadavg()})
			var after, rest []time.Duration
			for range samples {
				z := pick()
				after = append(after, timed(func() { pdns(s.c, "/api/v1/servers/localhost/zones/"+z+".?rrsets=false") }))
				z = pick()
				rest = append(rest, timed(func() {
					if r := s.c.do("GET", "/api/v1/zones/"+z, nil); r.status != http.StatusOK {
						b.Fatalf("GET %s: %d", z, r.status)
					}
				}))
			}
			c3 := commands(s.c)
			results = append(results, result{s.name, "PowerDNS GET, after the lists", after, delta(c2, c3), loadavg()})
			results = append(results, result{s.name, "zone API GET, interleaved", rest, "", loadavg()})
			fmt.Printf("%s round %d: after the lists %v\n", s.name, round, after)
			// The same GETs, and named's own zonestatus, while named's
			// statistics channel lists every zone (as the inventory's
			// refresh and BenchmarkScale's statistics list ask it),
			// with the restart watch's read of the server counters
			// timed beside.
			stop := make(chan struct{})
			done := make(chan []time.Duration)
			go func() {
				var srv []time.Duration
				for {
					select {
					case <-stop:
						done <- srv
						return
					default:
					}
					if resp, err := http.Get("http://" + ns.StatsAddr + "/json/v1/zones"); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					srv = append(srv, timed(func() {
						if resp, err := http.Get("http://" + ns.StatsAddr + "/json/v1/server"); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}))
				}
			}()
			time.Sleep(100 * time.Millisecond)
			c4 := commands(s.c)
			var during, status []time.Duration
			for i := range samples {
				z := pick()
				if i == 0 && dump != "" {
					// Where a GET that waits is: 100 ms into the first.
					go func() {
						time.Sleep(100 * time.Millisecond)
						resp, err := http.Get("http://" + s.c.AdminAddr + "/debug/pprof/goroutine?debug=2")
						if err != nil {
							return
						}
						data, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						_ = os.WriteFile(filepath.Join(dump, fmt.Sprintf("goroutines-%s-%d.txt", strings.ReplaceAll(s.name, " ", ""), round)), data, 0o644)
					}()
				}
				during = append(during, timed(func() { pdns(s.c, "/api/v1/servers/localhost/zones/"+z+".?rrsets=false") }))
				z = pick()
				status = append(status, timed(func() {
					if _, err := rc.ZoneStatus(ctx, z); err != nil {
						b.Fatal(err)
					}
				}))
			}
			c5 := commands(s.c)
			close(stop)
			srv := <-done
			results = append(results, result{s.name, "PowerDNS GET, during statistics zone lists", during, delta(c4, c5), loadavg()})
			results = append(results, result{s.name, "named's zonestatus (rndc client), interleaved", status, "", loadavg()})
			results = append(results, result{s.name, "statistics server counters, between the zone lists", srv, "", loadavg()})
			fmt.Printf("%s round %d: during the statistics lists %v\n", s.name, round, during)
			heals := 0
			for line := range strings.SplitSeq(s.c.Log(), "\n") {
				if strings.Contains(line, "healed after named restarted") {
					heals++
				}
			}
			fmt.Printf("%s round %d: restart heals logged so far: %d\n", s.name, round, heals)
			s.c.Stop()
		}
	}
	fmt.Printf("\nBenchmarkPowerDNSGetAfterList: %d API zones (+%d bare), p50 and max of %d (lists: of 3)\n\n| build | phase | p50 | max | control commands during it | load |\n|---|---|---|---|---|---|\n", n, bares, samples)
	for _, r := range results {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.side, r.phase, ms(p50(r.d)), ms(slices.Max(r.d)), r.cmds, r.load)
	}
}
