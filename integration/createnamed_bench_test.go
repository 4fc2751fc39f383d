package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkCreateNamedCost looks for what named does more per API create
// than per bare `rndc addzone` (issue 27: 0.24 ms more at 1,000 zones,
// 0.6 ms at 10,000, 2.3 ms at 100,000 in the eleventh BenchmarkScale
// run), on demand. One named and a Caddy configured as BenchmarkScale's
// (statistics_channel and powerdns; ZONEAPI_CREATECOST_PLAIN=1 for
// neither); ZONEAPI_CREATECOST_ZONES zones (default 10,000) created
// through the API first, then ZONEAPI_CREATECOST_ROUNDS rounds (default
// 7) of one block (80 zones at c=8) of each of, the order rotated:
//
//   - bare addzone, back to back (the rndc client, files written before
//     the clock, as BenchmarkScale's);
//   - creates through this tree's API;
//   - with $ZONEAPI_BASELINE_CADDY, creates through that build's API (a
//     zone directory of its own);
//   - bare addzone paced as the API: each command started at the API
//     block's own interval (named idle between commands as it is between
//     the API's), at most 8 at once;
//   - the same, each addzone followed by the SOA query the API sends for
//     a new zone (zoneservice's recordZone) on a dnsupdate client.
//
// Per side: the rate, named's CPU a zone, the same less named's CPU of
// an idle stretch of as long (measured before the rounds), named's
// context switches a zone and what its statistics channel counted a
// zone. With ZONEAPI_CREATECOST_STRACE=1, one more block of each side
// runs under `strace -c -f -p <named>`, whose summary is printed; with
// ZONEAPI_CREATECOST_PERF=1, under `perf record` (named's hottest
// symbols printed); with ZONEAPI_CREATECOST_RESTART=1, after the rounds
// and with the Caddys stopped, 3 blocks of each bare side before and
// after named restarts (same zones; the restart empties named's table of
// the control messages of the last 15 minutes, see
// BenchmarkNamedControlDupTable). It asserts nothing.
func BenchmarkCreateNamedCost(b *testing.B) {
	zones := envInt("ZONEAPI_CREATECOST_ZONES", 10000)
	rounds := envInt("ZONEAPI_CREATECOST_ROUNDS", 7)
	const block = 80
	loadAtStart := loadAverage()

	defer func(d time.Duration) { testbind.StartTimeout = d }(testbind.StartTimeout)
	testbind.StartTimeout = 10 * time.Minute
	ns := testbind.Start(b, nil)
	pid := ns.Pid()
	rc := benchRNDC(b, ns)
	bareDir := filepath.Join(ns.Dir, "bare")
	if err := os.MkdirAll(bareDir, 0o755); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	opts := caddyOpts{handle: "/api*", extra: "statistics_channel " + ns.StatsAddr + "\n\t\t\tpowerdns"}
	if os.Getenv("ZONEAPI_CREATECOST_PLAIN") == "1" {
		opts = caddyOpts{}
	}

	type side struct {
		name    string
		made    int
		pid     int
		create  func(from, to int, every time.Duration)
		n       int
		el      time.Duration
		named   time.Duration
		caddy   time.Duration
		sw      int64
		stats   map[string]float64
		pacedBy *side
	}
	apiSide := func(name string, c *caddy) *side {
		return &side{name: name, pid: c.Process().Pid, stats: map[string]float64{}, create: func(from, to int, _ time.Duration) {
			parallel(8, from, to, func(i int) {
				z := fmt.Sprintf("%s%06d.cost", name, i)
				if r := c.do("POST", "/api/v1/zones", flatZoneBody(z)); r.status != http.StatusCreated {
					b.Errorf("create %s: %d %.200s", z, r.status, r.raw)
				}
			})
		}}
	}
	dc, err := dnsupdate.NewClient(ns.DNSAddr, &dnsupdate.TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	bareCreate := func(prefix string, soa bool) func(from, to int, every time.Duration) {
		return func(from, to int, every time.Duration) {
			stmts := make([]*rndc.ZoneStatement, to-from)
			for j := range stmts {
				stmts[j] = bareZone(b, bareDir, fmt.Sprintf("%s%06d.cost", prefix, from+j), ns.TSIGKeyName)
			}
			add := func(j int) {
				if _, err := rc.AddZone(ctx, stmts[j]); err != nil {
					b.Errorf("addzone: %v", err)
				}
				if soa {
					// The API's SOA read of a new zone (zoneservice's
					// recordZone), on the API's DNS client.
					_, _ = dc.SOA(ctx, stmts[j].Name)
				}
			}
			paced(8, len(stmts), every, add)
		}
	}
	newCaddy := startCaddy(b, ns, opts)
	caddys := []*caddy{newCaddy}
	api := apiSide("new", newCaddy)
	bare := &side{name: "bare addzone, back to back", stats: map[string]float64{}, create: bareCreate("bare", false)}
	paced := &side{name: "bare addzone, paced as the API", stats: map[string]float64{}, create: bareCreate("paced", false), pacedBy: api}
	pacedSOA := &side{name: "bare addzone then an SOA query, paced as the API", stats: map[string]float64{}, create: bareCreate("soa", true), pacedBy: api}
	sides := []*side{bare, api}
	apis := []*side{api}
	if base := os.Getenv("ZONEAPI_BASELINE_CADDY"); base != "" {
		bopts := opts
		bopts.bin, bopts.zoneDir = base, baselineDir(b, ns)
		bc := startCaddy(b, ns, bopts)
		caddys = append(caddys, bc)
		bs := apiSide("baseline", bc)
		sides = append(sides, bs)
		apis = append(apis, bs)
	}
	sides = append(sides, paced, pacedSOA)

	// The zones, through the API(s).
	for i, s := range apis {
		k := zones*(i+1)/len(apis) - zones*i/len(apis)
		s.create(s.made, s.made+k, 0)
		s.made += k
	}
	if b.Failed() {
		b.FailNow()
	}
	time.Sleep(3 * time.Second)
	idleFor := 5 * time.Second
	n0, s0 := threadsCPU(pid), namedStats(ns)
	time.Sleep(idleFor)
	idle := threadsCPU(pid) - n0
	fmt.Printf("named idle for %s at %d zones: CPU %s (%.3f ms a second); its statistics counted %s\n", idleFor, zones, ms(idle), idle.Seconds()*1000/idleFor.Seconds(), statsDiff(s0, namedStats(ns)))
	idleRate := idle.Seconds() / idleFor.Seconds() // CPU seconds a second
	if os.Getenv("ZONEAPI_CREATECOST_IDLE_ONLY") == "1" {
		// named's CPU second by second, with the Caddys attached, then
		// without them.
		each := func(what string, secs int) {
			var got []string
			for range secs {
				c0 := threadsCPU(pid)
				time.Sleep(time.Second)
				got = append(got, fmt.Sprintf("%.0f", (threadsCPU(pid)-c0).Seconds()*1000))
			}
			fmt.Printf("named's CPU a second (ms), %s: %s\n", what, strings.Join(got, " "))
		}
		each("Caddy attached", 20)
		newCaddy.Stop()
		each("this tree's Caddy stopped", 20)
		return
	}

	var apiEvery time.Duration
	run := func(s *side) {
		every := time.Duration(0)
		if s.pacedBy != nil {
			every = apiEvery
		}
		st0, c0, k0, w0 := namedStats(ns), threadsCPU(pid), threadsCPU(s.pid), namedSwitches(pid)
		t0 := time.Now()
		s.create(s.made, s.made+block, every)
		el := time.Since(t0)
		s.named += threadsCPU(pid) - c0
		if s.pid != 0 {
			s.caddy += threadsCPU(s.pid) - k0
		}
		s.sw += namedSwitches(pid) - w0
		for k, v := range namedStats(ns) {
			s.stats[k] += v - st0[k]
		}
		s.made += block
		s.n += block
		s.el += el
		if s == api {
			apiEvery = el / block
		}
	}
	for round := range rounds {
		for j := range sides {
			run(sides[(j+round)%len(sides)])
		}
		if b.Failed() {
			b.FailNow()
		}
	}

	fmt.Printf("\nBenchmarkCreateNamedCost: %d zones, %d rounds of %d zones a side at c=8, the order rotated; load average %s at the start, %s at the end\n\n", zones, rounds, block, loadAtStart, loadAverage())
	fmt.Printf("| side | zones/s | named CPU a zone | less idle | named CPU a second | Caddy CPU a zone | named context switches a zone | named's statistics a zone |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range sides {
		var st []string
		for k, v := range s.stats {
			if v != 0 {
				st = append(st, fmt.Sprintf("%s %.2f", k, v/float64(s.n)))
			}
		}
		sort.Strings(st)
		caddyCPU := "-"
		if s.pid != 0 {
			caddyCPU = ms(s.caddy / time.Duration(s.n))
		}
		lessIdle := s.named - time.Duration(idleRate*float64(s.el))
		fmt.Printf("| %s | %.0f | %s | %s | %.0f ms | %s | %.1f | %s |\n", s.name, float64(s.n)/s.el.Seconds(), ms(s.named/time.Duration(s.n)), ms(lessIdle/time.Duration(s.n)),
			s.named.Seconds()*1000/s.el.Seconds(), caddyCPU, float64(s.sw)/float64(s.n), strings.Join(st, ", "))
	}

	if os.Getenv("ZONEAPI_CREATECOST_RESTART") == "1" {
		// The same blocks of bare addzone on the same zones, before and
		// after named restarts (which empties its table of the control
		// messages of the last 15 minutes), with the Caddys stopped.
		for _, c := range caddys {
			c.Stop()
		}
		measure := func(what string) {
			for _, s := range []*side{bare, paced} {
				every := time.Duration(0)
				if s == paced {
					every = apiEvery
				}
				c0, el := threadsCPU(pid), time.Duration(0)
				for range 3 {
					t0 := time.Now()
					s.create(s.made, s.made+block, every)
					el += time.Since(t0)
					s.made += block
				}
				fmt.Printf("%s: %s: %.0f/s, named CPU %s a zone\n", what, s.name, float64(3*block)/el.Seconds(), ms((threadsCPU(pid)-c0)/(3*block)))
			}
		}
		time.Sleep(2 * time.Second)
		measure("named as the rounds left it")
		ns.Restart(b)
		pid = ns.Pid()
		time.Sleep(3 * time.Second)
		measure("named restarted")
		return
	}
	if os.Getenv("ZONEAPI_CREATECOST_PERF") == "1" {
		for _, s := range sides {
			out := filepath.Join(b.TempDir(), "perf.data")
			cmd := exec.Command("perf", "record", "-q", "-F", "4999", "-p", fmt.Sprint(pid), "-o", out)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			time.Sleep(time.Second)
			run(s)
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
			rep, _ := exec.Command("perf", "report", "-i", out, "--stdio", "--sort", "dso,sym", "--percent-limit", "1.5").Output()
			fmt.Printf("\nperf of named over one block of %d (%s, after 1 s attached):\n%s", block, s.name, rep)
		}
	}
	if os.Getenv("ZONEAPI_CREATECOST_STRACE") == "1" {
		for _, s := range sides {
			out := filepath.Join(b.TempDir(), "strace.txt")
			cmd := exec.Command("strace", "-c", "-f", "-p", fmt.Sprint(pid), "-o", out)
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			time.Sleep(time.Second)
			run(s)
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
			data, _ := os.ReadFile(out)
			fmt.Printf("\nstrace -c -f of named over one block of %d (%s, after 1 s attached):\n%s", block, s.name, data)
		}
	}
}

// BenchmarkNamedControlDupTable shows why named's CPU per control command
// grows over a run of creates, whatever the number of zones: named keeps
// every control message it received in the last 15 minutes (BIND's
// isccc duplicate table, DUP_LIFETIME 900 s) and walks all of them on
// each message it receives (isccc_cc_cleansymtab). On a named without
// zones it prints named's CPU per `rndc null` (a command that does
// nothing) before and after ZONEAPI_DUPTABLE_MESSAGES (default 30,000)
// more of them, sent at c=8, and again with the client idle 2 ms between
// commands (named woken per command, as between the API's creates). It
// asserts nothing.
func BenchmarkNamedControlDupTable(b *testing.B) {
	n := envInt("ZONEAPI_DUPTABLE_MESSAGES", 30000)
	ns := startNamed(b)
	pid := ns.Pid()
	rc := benchRNDC(b, ns)
	ctx := context.Background()
	null := func(int) {
		if _, err := rc.Command(ctx, "null"); err != nil {
			b.Fatal(err)
		}
	}
	per := func(k int, pause time.Duration) time.Duration {
		c0 := threadsCPU(pid)
		for i := range k {
			null(i)
			if pause > 0 {
				time.Sleep(pause)
			}
		}
		return (threadsCPU(pid) - c0) / time.Duration(k)
	}
	before, beforePaced := per(500, 0), per(500, 2*time.Millisecond)
	t0 := time.Now()
	parallel(8, 0, n, null)
	took := time.Since(t0)
	after, afterPaced := per(500, 0), per(500, 2*time.Millisecond)
	fmt.Printf("named's CPU per rndc null, back to back: %s with about 1,000 messages in the last 15 minutes, %s after %d more (sent in %s); paced 2 ms apart: %s, %s; load average %s\n",
		ms(before), ms(after), n, took.Round(time.Millisecond), ms(beforePaced), ms(afterPaced), loadAverage())
}
