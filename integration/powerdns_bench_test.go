package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// BenchmarkPowerDNSVersusPowerDNS measures the PowerDNS-compatible API
// side by side with PowerDNS itself (Debian's pdns-server 4.7 with the
// gsqlite3 backend, its API on loopback), in one run on this machine:
//
//   - one-RRset PATCH (a TXT REPLACE) at concurrency 1 and 8 (zone_api
//     also 64): requests/s, p50, and errors (any answer but 204), and
//     zone_api's against the REST API's record add (a TXT record at a new
//     name, POST /zones/{name}/records) on the same Caddy and named at the
//     same concurrency, with Caddy's CPU per request of each (the two
//     measured in alternating slices of the same stretch of time, runPair);
//   - GET /zones with 10,000 zones: p50 (PowerDNS also with dnssec=false).
//
// At c=1 the rounds also measure the floors under zone_api's PATCH: the
// same change sent to the same named as a raw RFC 2136 UPDATE on a
// kept-alive connection (pdnsFloor: bare, and as zone_api sends it), and
// a request through the same Caddy to a site that answers 204 and does
// nothing else, and the same API with its change history off (a second
// Caddy). It prints each server's CPU time per request (from
// /proc), how many connections the client opened for each server, and the
// load average.
//
// The two run interleaved, round by round. PowerDNS is not needed by the
// tests: scripts/bench-powerdns.sh installs it and runs this; without
// pdns_server the benchmark is skipped. ZONEAPI_PDNS_ZONES sets the zone
// count (default 10000), ZONEAPI_PDNS_ROUNDS the rounds (default 2),
// ZONEAPI_PDNS_DNSSEC=1 PowerDNS's gsqlite3-dnssec (see startPowerDNS),
// ZONEAPI_BASELINE_CADDY another build of the module, measured at c=1 and
// c=8 in the same rounds (history on, a zone directory of its own).
// ZONEAPI_PDNS_PROFILE=dir also takes Caddy's CPU profiles of the PATCH
// and of the REST API's record add after the rounds (profilePatchAndAdd).
func BenchmarkPowerDNSVersusPowerDNS(b *testing.B) {
	pdnsBin := "/usr/sbin/pdns_server"
	if _, err := os.Stat(pdnsBin); err != nil {
		b.Skip("pdns_server is not installed (scripts/bench-powerdns.sh installs it)")
	}
	zones, rounds := 10000, 2
	if v := os.Getenv("ZONEAPI_PDNS_ZONES"); v != "" {
		fmt.Sscan(v, &zones)
	}
	if v := os.Getenv("ZONEAPI_PDNS_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	ns := startNamed(b)
	// A second site of the same Caddy answers 204 and does nothing else:
	// what one HTTP request through Caddy costs, the other floor.
	bare := testcaddy.FreePort(b)
	c := startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "powerdns",
		sites: fmt.Sprintf("http://127.0.0.1:%d {\n\tbind 127.0.0.1\n\trespond 204\n}\n", bare)})
	empty := newPDNSTarget("Caddy alone (respond 204)", fmt.Sprintf("http://127.0.0.1:%d", bare), "")
	ours := newPDNSTarget("zone_api (BIND)", c.Base, testToken)
	// The same API with the change history off (it is on by default),
	// a second Caddy on the same named and zone directory, for its own
	// zone: what recording each change costs.
	cOff := startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "powerdns\n\t\t\thistory off"})
	noHistory := newPDNSTarget("zone_api (BIND), history off", cOff.Base, testToken)
	noHistory.zone = "nohistory.test"
	theirs := startPowerDNS(b, pdnsBin)
	// $ZONEAPI_BASELINE_CADDY, another build of the module (scripts/build.sh
	// in a worktree of an older commit), history on, with a zone
	// directory (and so a history) of its own: the c=1 PATCH of that
	// build in the same rounds.
	// The REST API's record add on the same Caddy and named, in a zone of
	// its own: what a one-RRset PATCH is held against (issue 28).
	restAdd := newPDNSTarget("REST API record add (same Caddy)", c.Base, testToken)
	restAdd.zone, restAdd.bearer = "restadd.test", true
	targets := []*pdnsTarget{ours, noHistory, theirs}
	var baseline *pdnsTarget
	var cBase *caddy
	if bin := os.Getenv("ZONEAPI_BASELINE_CADDY"); bin != "" {
		cBase = startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "powerdns", bin: bin, zoneDir: baselineDir(b, ns)})
		baseline = newPDNSTarget("zone_api (BIND), baseline build", cBase.Base, testToken)
		baseline.zone = "baseline.test"
		targets = append(targets, baseline)
	}

	for _, t := range targets {
		if r := t.req("POST", "/api/v1/servers/localhost/zones", `{"name":"`+t.zoneName()+`.","kind":"Native","nameservers":["ns1.example.net."]}`); r != 201 {
			b.Fatalf("%s: create %s: %d", t.name, t.zoneName(), r)
		}
	}
	type result struct {
		rps    float64
		p50    time.Duration
		cpu    []time.Duration // each server process's CPU time per request
		errors int
		total  int
	}
	results := map[string][]result{}
	patch := func(t *pdnsTarget) func(int) int {
		return func(i int) int {
			body := fmt.Sprintf(`{"rrsets":[{"name":"t%d.%s.","type":"TXT","ttl":60,"changetype":"REPLACE","records":[{"content":"\"v%d\"","disabled":false}]}]}`, i%50, t.zoneName(), i)
			return t.req("PATCH", "/api/v1/servers/localhost/zones/"+t.zoneName()+".", body)
		}
	}
	// A TXT record at a name of its own per add, as a client adding
	// records one by one does (201 counts as success).
	var adds atomic.Int64
	restAddOp := func(int) int {
		k := adds.Add(1)
		body := fmt.Sprintf(`{"name":"a%06d","type":"TXT","value":"\"v%d\"","ttl":60}`, k, k)
		if st := restAdd.req("POST", "/api/v1/zones/"+restAdd.zoneName()+"/records", body); st != 201 {
			return st
		}
		return 204
	}
	if r := ours.req("POST", "/api/v1/servers/localhost/zones", `{"name":"`+restAdd.zoneName()+`.","kind":"Native","nameservers":["ns1.example.net."]}`); r != 201 {
		b.Fatalf("create %s: %d", restAdd.zoneName(), r)
	}
	// The floor: the same change sent to the same named as a raw UPDATE,
	// in zones of their own made like bench.test (so that they do not
	// move bench.test's serial under zone_api's pin).
	var floors []*pdnsFloor
	for _, f := range []struct {
		name, zone string
		pinned     bool
	}{{"raw UPDATE, bare change", "floor.test", false}, {"raw UPDATE, zone_api's message", "pinned.test", true}} {
		if r := ours.req("POST", "/api/v1/servers/localhost/zones", `{"name":"`+f.zone+`.","kind":"Native","nameservers":["ns1.example.net."]}`); r != 201 {
			b.Fatalf("create %s: %d", f.zone, r)
		}
		floors = append(floors, newPDNSFloor(b, ns, f.name, f.zone, f.pinned))
	}
	// CPU time: Caddy's and named's threads live as long as they do
	// (threadsCPU, in nanoseconds); PowerDNS's are counted with the ended
	// ones (procCPU, in 10 ms ticks).
	cpuOf := func(pid int) time.Duration {
		if pid == theirs.pid {
			return procCPU(pid)
		}
		return threadsCPU(pid)
	}
	// window is what the requests of one measurement took, summed over
	// its slices.
	type window struct {
		el    time.Duration
		lat   []time.Duration
		errs  int
		n     int
		cpu   []time.Duration
		index int // the next request's index (bodies differ across slices)
	}
	// measure sends n requests on conc workers and adds them to w.
	measure := func(w *window, do func(int) int, pids []int, conc, n int) {
		if w.cpu == nil {
			w.cpu = make([]time.Duration, len(pids))
		}
		cpu0 := make([]time.Duration, len(pids))
		for i, p := range pids {
			cpu0[i] = cpuOf(p)
		}
		var mu sync.Mutex
		first, next := w.index, w.index
		start := time.Now()
		var wg sync.WaitGroup
		for range conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= first+n {
						return
					}
					t0 := time.Now()
					st := do(i)
					d := time.Since(t0)
					mu.Lock()
					w.lat = append(w.lat, d)
					if st != 204 {
						w.errs++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		w.el += time.Since(start)
		for i, p := range pids {
			w.cpu[i] += cpuOf(p) - cpu0[i]
		}
		w.n += n
		w.index += n
	}
	record := func(name string, conc int, w *window) {
		sort.Slice(w.lat, func(i, j int) bool { return w.lat[i] < w.lat[j] })
		cpu := make([]time.Duration, len(w.cpu))
		for i, d := range w.cpu {
			cpu[i] = d / time.Duration(w.n)
		}
		key := fmt.Sprintf("%s c=%d", name, conc)
		results[key] = append(results[key], result{rps: float64(w.n) / w.el.Seconds(), p50: w.lat[len(w.lat)/2], errors: w.errs, total: w.n, cpu: cpu})
	}
	run := func(name string, do func(int) int, pids []int, conc, n int) {
		w := &window{}
		measure(w, do, pids, conc, n)
		record(name, conc, w)
	}
	// runPair measures the PATCH and the REST API's record add in the same
	// stretch of time: slices of each in turn (ABBA, starting with the
	// other every round, so that neither is always the one after the
	// other), so that the load of the machine,
	// which other processes change from second to second, weighs on both
	// alike and their ratio is the cost of the requests, not of the moment
	// each ran in.
	runPair := func(round, conc, n int) {
		// Short slices: the machine's load changes within a second.
		slices := map[int]int{1: 30, 8: 16, 64: 4}[conc]
		pids := []int{c.Process().Pid, ns.Pid()}
		// A few requests of each first, not counted: what the run
		// before left running (PowerDNS's, another concurrency's) ends
		// on neither's count.
		measure(&window{index: 1 << 20}, patch(ours), pids, conc, 2*conc)
		measure(&window{}, restAddOp, pids, conc, 2*conc)
		wp, wa := &window{}, &window{}
		for sl := 0; sl < slices; sl++ {
			if (sl+round)%2 == 0 {
				measure(wp, patch(ours), pids, conc, n/slices)
				measure(wa, restAddOp, pids, conc, n/slices)
			} else {
				measure(wa, restAddOp, pids, conc, n/slices)
				measure(wp, patch(ours), pids, conc, n/slices)
			}
		}
		record(ours.name, conc, wp)
		record(restAdd.name, conc, wa)
	}
	for round := 0; round < rounds; round++ {
		for _, conc := range []int{1, 8, 64} {
			n := map[int]int{1: 300, 8: 800, 64: 1600}[conc]
			if conc < 64 {
				run(theirs.name, patch(theirs), []int{theirs.pid}, conc, n)
			}
			runPair(round, conc, n)
			if conc <= 8 && baseline != nil {
				run(baseline.name, patch(baseline), []int{cBase.Process().Pid, ns.Pid()}, conc, n)
			}
			if conc == 1 {
				run(noHistory.name, patch(noHistory), []int{cOff.Process().Pid, ns.Pid()}, conc, n)
				for _, f := range floors {
					run(f.name, func(i int) int { return f.send(ns.TSIGKeyName, i) }, []int{ns.Pid()}, conc, n)
				}
				run(empty.name, patch(empty), []int{c.Process().Pid}, conc, n)
			}
		}
	}

	if dir := os.Getenv("ZONEAPI_PDNS_PROFILE"); dir != "" {
		profilePatchAndAdd(b, dir, c, ns, map[string]func(int) int{"patch": patch(ours), "restadd": restAddOp},
			map[string]string{"patch": ours.zoneName(), "restadd": restAdd.zoneName()})
	}

	patchDials := fmt.Sprintf("connections the client opened for the PATCH rounds: %s %d, %s %d, %s %d",
		theirs.name, theirs.dials.Load(), ours.name, ours.dials.Load(), empty.name, empty.dials.Load())

	// Zone list at `zones` zones: ours through the API (the zones must
	// be in named), PowerDNS's inserted into its database directly (its
	// list reads the database; how they got there does not matter).
	fillStart := time.Now()
	for i := 1; i < zones; i++ { // bench.test is the first
		body := fmt.Sprintf(`{"name":"z%05d.list.","kind":"Native","nameservers":["ns1.example.net."]}`, i)
		if st := ours.req("POST", "/api/v1/servers/localhost/zones?rrsets=false", body); st != 201 {
			b.Fatalf("fill %d: %d", i, st)
		}
	}
	fillOurs := time.Since(fillStart)
	theirs.fill(b, zones-1)
	listP50 := map[string]time.Duration{}
	var size = map[string]int{}
	for round := 0; round < rounds; round++ {
		for _, lt := range []struct {
			t     *pdnsTarget
			query string
		}{{theirs, ""}, {theirs, "?dnssec=false"}, {ours, ""}, {ours, "?dnssec=false"}} {
			var lat []time.Duration
			for i := 0; i < 10; i++ {
				t0 := time.Now()
				st, n := lt.t.get("/api/v1/servers/localhost/zones" + lt.query)
				lat = append(lat, time.Since(t0))
				if st != 200 {
					b.Fatalf("%s list: %d", lt.t.name, st)
				}
				size[lt.t.name+" "+lt.query] = n
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			k := lt.t.name + " " + lt.query
			if d := lat[len(lat)/2]; listP50[k] == 0 || d < listP50[k] {
				listP50[k] = d
			}
		}
	}

	fmt.Printf("\nPowerDNS API, side by side (same run, same machine, loopback), %d round(s):\n\n", rounds)
	fmt.Printf("| one-RRset PATCH | round | requests/s | p50 | errors | server CPU per request (zone_api: Caddy + named) |\n|---|---|---|---|---|---|\n")
	keys := make([]string, 0, len(results))
	for k := range results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for i, r := range results[k] {
			cpu := make([]string, len(r.cpu))
			for j, d := range r.cpu {
				cpu[j] = ms(d)
			}
			fmt.Printf("| %s | %d | %.0f | %s | %d of %d | %s |\n", k, i+1, r.rps, ms(r.p50), r.errors, r.total, strings.Join(cpu, " + "))
		}
	}
	median := func(k string) float64 {
		var v []float64
		for _, r := range results[k] {
			v = append(v, r.rps)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	p50 := func(k string) time.Duration {
		var v []time.Duration
		for _, r := range results[k] {
			v = append(v, r.p50)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	base := median(theirs.name + " c=1")
	fmt.Printf("\nagainst PowerDNS at c=1 (%.0f/s): zone_api c=1 %.2fx, zone_api c=8 %.2fx, PowerDNS c=8 %.2fx\n",
		base, median(ours.name+" c=1")/base, median(ours.name+" c=8")/base, median(theirs.name+" c=8")/base)
	for _, f := range floors {
		fmt.Printf("%s at c=1: %.0f/s (%.2fx PowerDNS; zone_api at c=1 is %.0f%% of it)\n",
			f.name, median(f.name+" c=1"), median(f.name+" c=1")/base, 100*median(ours.name+" c=1")/median(f.name+" c=1"))
	}
	fmt.Printf("%s at c=1: %.0f/s, p50 %s\n", empty.name, median(empty.name+" c=1"), ms(p50(empty.name+" c=1")))
	// A PATCH at c=1 is an HTTP exchange with Caddy and an UPDATE exchange
	// with named, one after the other: it can be no faster than the two
	// floors in a row (their times per request added), whatever the API
	// does between them.
	both := 1 / (1/median(floors[1].name+" c=1") + 1/median(empty.name+" c=1"))
	fmt.Printf("%s, then %s, in a row (the least a c=1 PATCH takes): %.0f/s (%.2fx PowerDNS; zone_api at c=1 is %.0f%% of it; %.2fx PowerDNS needs %.0f%%)\n",
		floors[1].name, empty.name, both, both/base, 100*median(ours.name+" c=1")/both, pdnsGoalC1, 100*pdnsGoalC1*base/both)
	cpuD := func(k string, i int) time.Duration {
		var v []time.Duration
		for _, r := range results[k] {
			v = append(v, r.cpu[i])
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	cpu := func(k string, i int) string { return ms(cpuD(k, i)) }
	errorsOf := func(k string) (n, total int) {
		for _, r := range results[k] {
			n, total = n+r.errors, total+r.total
		}
		return n, total
	}
	fmt.Printf("\none-RRset PATCH against the REST API's record add (same Caddy, same named, medians of the rounds):\n")
	for _, conc := range []int{1, 8, 64} {
		pk, rk := fmt.Sprintf("%s c=%d", ours.name, conc), fmt.Sprintf("%s c=%d", restAdd.name, conc)
		pe, pt := errorsOf(pk)
		re, rt := errorsOf(rk)
		// Each round's pair was measured in the same stretch of time
		// (runPair): its ratio is the paired figure.
		var ratios []float64
		var rs []string
		for i := range results[pk] {
			if i < len(results[rk]) {
				ratios = append(ratios, results[pk][i].rps/results[rk][i].rps)
				rs = append(rs, fmt.Sprintf("%.2f", ratios[len(ratios)-1]))
			}
		}
		sort.Float64s(ratios)
		fmt.Printf("  c=%d: PATCH %.0f/s, REST add %.0f/s: %.2fx; by round %s (median %.2fx); errors PATCH %d of %d, REST add %d of %d; Caddy CPU per request PATCH %s, REST add %s: %.2fx (named %s, %s)\n",
			conc, median(pk), median(rk), median(pk)/median(rk), strings.Join(rs, ", "), ratios[len(ratios)/2], pe, pt, re, rt, cpu(pk, 0), cpu(rk, 0),
			float64(cpuD(pk, 0))/float64(cpuD(rk, 0)), cpu(pk, 1), cpu(rk, 1))
	}
	fmt.Printf("%s at c=1: %.0f/s (%.2fx PowerDNS)\n", noHistory.name, median(noHistory.name+" c=1"), median(noHistory.name+" c=1")/base)
	if baseline != nil {
		k := baseline.name + " c=1"
		fmt.Printf("%s at c=1: %.0f/s (%.2fx PowerDNS; this tree %.2fx it), CPU per request Caddy %s + named %s\n",
			baseline.name, median(k), median(k)/base, median(ours.name+" c=1")/median(k), cpu(k, 0), cpu(k, 1))
		k8 := baseline.name + " c=8"
		fmt.Printf("%s at c=8: %.0f/s (this tree %.2fx it; the REST API's record add %.2fx it), CPU per request Caddy %s + named %s\n",
			baseline.name, median(k8), median(ours.name+" c=8")/median(k8), median(restAdd.name+" c=8")/median(k8), cpu(k8, 0), cpu(k8, 1))
	}
	fmt.Printf("server CPU per request at c=1 (median of the rounds): %s %s; %s Caddy %s + named %s; %s Caddy %s + named %s; %s (named) %s; %s (named) %s; %s %s\n",
		theirs.name, cpu(theirs.name+" c=1", 0), ours.name, cpu(ours.name+" c=1", 0), cpu(ours.name+" c=1", 1),
		noHistory.name, cpu(noHistory.name+" c=1", 0), cpu(noHistory.name+" c=1", 1),
		floors[0].name, cpu(floors[0].name+" c=1", 0), floors[1].name, cpu(floors[1].name+" c=1", 0), empty.name, cpu(empty.name+" c=1", 0))
	fmt.Println(patchDials)
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at the end of the PATCH rounds: %s", la)
	}
	fmt.Printf("\n| GET /zones at %d zones | p50 (best round) | body |\n|---|---|---|\n", zones)
	lk := make([]string, 0, len(listP50))
	for k := range listP50 {
		lk = append(lk, k)
	}
	sort.Strings(lk)
	for _, k := range lk {
		fmt.Printf("| %s | %s | %d bytes |\n", k, ms(listP50[k]), size[k])
	}
	fmt.Printf("\n(filling %d zones through zone_api took %s)\n", zones-1, fillOurs.Round(time.Second))
	b.ReportMetric(median(ours.name+" c=1")/base, "x-pdns-c1")
}

// pdnsGoalC1 is issue 28's goal for the one-RRset PATCH at c=1, as a
// multiple of PowerDNS's rate.
const pdnsGoalC1 = 1.8

// pdnsBenchClient keeps a connection per worker of the c=64 runs alive
// (net/http's default transport keeps 2 per host and dials again for
// the others; a pool of 16 made the c=64 slices dial some 250
// connections a round), so both servers are measured on reused
// connections; dials counts the connections it opens (a server that
// closes its connections makes the client dial again).
func pdnsBenchClient(dials *atomic.Int64) http.Client {
	d := &net.Dialer{}
	return http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		}}}
}

// pdnsTarget is a PowerDNS API to measure.
type pdnsTarget struct {
	name, base, key string
	db              string // PowerDNS's sqlite database
	pid             int    // pdns_server's
	zone            string // the zone the PATCHes change (default bench.test)
	bearer          bool   // the key as a bearer token (the REST API)
	client          http.Client
	dials           atomic.Int64
}

func (t *pdnsTarget) zoneName() string {
	if t.zone == "" {
		return "bench.test"
	}
	return t.zone
}

func newPDNSTarget(name, base, key string) *pdnsTarget {
	t := &pdnsTarget{name: name, base: base, key: key}
	t.client = pdnsBenchClient(&t.dials)
	return t
}

func (t *pdnsTarget) req(method, path, body string) int {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, t.base+path, rd)
	if t.bearer {
		req.Header.Set("Authorization", "Bearer "+t.key)
	} else {
		req.Header.Set("X-API-Key", t.key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func (t *pdnsTarget) get(path string) (int, int) {
	req, _ := http.NewRequest("GET", t.base+path, nil)
	req.Header.Set("X-API-Key", t.key)
	resp, err := t.client.Do(req)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	n, _ := io.Copy(&buf, resp.Body)
	return resp.StatusCode, int(n)
}

// startPowerDNS starts pdns_server with a fresh gsqlite3 database and
// its API on a loopback port; it is stopped by its pid at the end. Its
// settings are the upstream defaults (the backend's WAL journal, SQLite's
// own synchronous=FULL, gsqlite3-dnssec=no); ZONEAPI_PDNS_DNSSEC=1 sets
// gsqlite3-dnssec=yes as Debian's example configuration
// (/usr/share/doc/pdns-backend-sqlite3/examples/gsqlite3.conf) does.
func startPowerDNS(b *testing.B, bin string) *pdnsTarget {
	dir := b.TempDir()
	db := filepath.Join(dir, "pdns.sqlite3")
	schema, err := os.ReadFile("/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql")
	if err != nil {
		b.Fatalf("the gsqlite3 schema: %v", err)
	}
	cmd := exec.Command("sqlite3", db)
	cmd.Stdin = bytes.NewReader(schema)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("sqlite3: %v %s", err, out)
	}
	webPort, dnsPort := freePort(b), freePort(b)
	dnssec := "no"
	if os.Getenv("ZONEAPI_PDNS_DNSSEC") == "1" {
		dnssec = "yes"
	}
	conf := fmt.Sprintf(`launch=gsqlite3
gsqlite3-database=%s
api=yes
api-key=bench-key
webserver=yes
webserver-address=127.0.0.1
webserver-port=%d
webserver-allow-from=127.0.0.0/8
local-address=127.0.0.1
local-port=%d
guardian=no
daemon=no
disable-syslog=yes
socket-dir=%s
loglevel=3
gsqlite3-dnssec=%s
`, db, webPort, dnsPort, dir, dnssec)
	if err := os.WriteFile(filepath.Join(dir, "pdns.conf"), []byte(conf), 0o600); err != nil {
		b.Fatal(err)
	}
	p := exec.Command(bin, "--config-dir="+dir)
	logf, _ := os.Create(filepath.Join(dir, "pdns.log"))
	p.Stdout, p.Stderr = logf, logf
	if err := p.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
	name := "PowerDNS 4.7 (gsqlite3)"
	if dnssec == "yes" {
		name = "PowerDNS 4.7 (gsqlite3, dnssec)"
	}
	t := newPDNSTarget(name, fmt.Sprintf("http://127.0.0.1:%d", webPort), "bench-key")
	t.db, t.pid = db, p.Process.Pid
	for i := 0; i < 100; i++ {
		if st, _ := t.get("/api/v1/servers/localhost"); st == 200 {
			return t
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "pdns.log"))
	b.Fatalf("pdns_server did not answer:\n%s", log)
	return nil
}

// fill inserts n zones (SOA and NS each) into PowerDNS's database with
// the sqlite3 program, in one transaction.
func (t *pdnsTarget) fill(b *testing.B, n int) {
	var sb strings.Builder
	sb.WriteString("BEGIN;\n")
	for i := 1; i <= n; i++ {
		z := fmt.Sprintf("z%05d.list", i)
		fmt.Fprintf(&sb, "INSERT INTO domains (name, type) VALUES ('%s', 'NATIVE');\n", z)
		fmt.Fprintf(&sb, "INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, auth) VALUES (last_insert_rowid(), '%s', 'SOA', 'ns1.example.net hostmaster.%s 1 10800 3600 604800 3600', 3600, 0, 0, 1);\n", z, z)
		fmt.Fprintf(&sb, "INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, auth) SELECT id, '%s', 'NS', 'ns1.example.net', 3600, 0, 0, 1 FROM domains WHERE name='%s';\n", z, z)
	}
	sb.WriteString("COMMIT;\n")
	cmd := exec.Command("sqlite3", t.db)
	cmd.Stdin = strings.NewReader(sb.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("filling PowerDNS: %v %s", err, out)
	}
}

// profilePatchAndAdd takes, at c=1 and c=8, twice each in alternation, a
// CPU profile of Caddy (its admin /debug/pprof/profile) while one of ops
// runs alone for ZONEAPI_PDNS_PROFILE_SECONDS (default 5), into
// dir/<op>-c<conc>-<rep>.pprof (`go tool pprof -top build/caddy <file>`),
// and prints each window's requests/s, latencies and Caddy's and
// named's CPU per request. ZONEAPI_PDNS_TRACE=1 takes execution traces
// instead (<op>-c<conc>-<rep>.trace, `go tool trace -pprof=sched`).
func profilePatchAndAdd(b *testing.B, dir string, c *caddy, ns *testbind.Server, ops map[string]func(int) int, zones map[string]string) {
	namedPid := ns.Pid()
	serial := func(zone string) uint32 {
		m := new(dns.Msg)
		m.SetQuestion(zone+".", dns.TypeSOA)
		r, err := dns.Exchange(m, ns.DNSAddr)
		if err != nil || len(r.Answer) == 0 {
			b.Fatalf("SOA of %s: %v", zone, err)
		}
		return r.Answer[0].(*dns.SOA).Serial
	}
	secs := 5
	if s := os.Getenv("ZONEAPI_PDNS_PROFILE_SECONDS"); s != "" {
		fmt.Sscan(s, &secs)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Printf("\nCaddy CPU profiles in %s, %d s each:\n", dir, secs)
	for _, conc := range []int{1, 8} {
		for rep := 1; rep <= 2; rep++ {
			for _, name := range names {
				path := fmt.Sprintf("%s/%s-c%d-%d.pprof", dir, name, conc, rep)
				done := make(chan error, 1)
				what := "profile"
				if os.Getenv("ZONEAPI_PDNS_TRACE") == "1" {
					// An execution trace instead (`go tool trace -pprof=sched`):
					// where the requests wait.
					what, path = "trace", strings.TrimSuffix(path, ".pprof")+".trace"
				}
				go func() {
					resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", c.AdminAddr, what, secs))
					if err != nil {
						done <- err
						return
					}
					defer resp.Body.Close()
					data, err := io.ReadAll(resp.Body)
					if err == nil {
						err = os.WriteFile(path, data, 0o644)
					}
					done <- err
				}()
				cpu0, ns0, serial0 := threadsCPU(c.Process().Pid), threadsCPU(namedPid), serial(zones[name])
				var next, errs atomic.Int64
				var lmu sync.Mutex
				var lat []time.Duration
				var wg sync.WaitGroup
				deadline := time.Now().Add(time.Duration(secs) * time.Second)
				op := ops[name]
				for range conc {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for time.Now().Before(deadline) {
							t0 := time.Now()
							if op(int(next.Add(1)-1)) != 204 {
								errs.Add(1)
							}
							d := time.Since(t0)
							lmu.Lock()
							lat = append(lat, d)
							lmu.Unlock()
						}
					}()
				}
				wg.Wait()
				n := time.Duration(max(next.Load(), 1))
				cpu, nsCPU := (threadsCPU(c.Process().Pid)-cpu0)/n, (threadsCPU(namedPid)-ns0)/n
				if err := <-done; err != nil {
					b.Fatalf("profile of %s: %v", name, err)
				}
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				// Each UPDATE message moves the serial by one (after the
				// first, which may jump to the clock's serial).
				msgs := serial(zones[name]) - serial0
				fmt.Printf("%s c=%d (%d): %.0f/s, p50 %s, p90 %s, %d errors, %.2f requests per UPDATE, CPU per request Caddy %s, named %s (%s)\n",
					name, conc, rep, float64(next.Load())/float64(secs), ms(lat[len(lat)/2]), ms(lat[len(lat)*9/10]), errs.Load(),
					float64(next.Load())/float64(max(msgs, 1)), ms(cpu), ms(nsCPU), path)
			}
		}
	}
}
