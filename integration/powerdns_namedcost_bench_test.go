package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// BenchmarkNamedCostOfPatch measures what Caddy asks of named around the
// c=1 PATCH of BenchmarkPowerDNSVersusPowerDNS, and why named's CPU per
// PATCH there is above its CPU per raw UPDATE of the same message (issue
// 28):
//
//   - named's CPU over an idle stretch (ZONEAPI_NAMEDCOST_IDLE, default
//     30 s) alone, then with a Caddy attached (its restart watch, and the
//     inventory's refresh after a GET /zones of 300 zones), with what
//     named's statistics channel counted meanwhile;
//   - in alternating slices of the same stretch of time: one-RRset PATCHes
//     through Caddy, zone_api's exact UPDATE sent raw back to back (the
//     benchmark's floor), the same raw UPDATE paced to start at the
//     PATCH's own interval (named idle between messages as it is between
//     PATCHes), and Caddy answering 204 back to back and paced likewise:
//     each server's CPU per request, named's context switches, and the
//     requests named's statistics channel counted per request (one UPDATE
//     per PATCH and nothing else is what the API asks).
//
// ZONEAPI_NAMEDCOST_STATS=1 gives Caddy named's statistics channel
// (statistics_channel: the inventory, and the restart watch's read);
// ZONEAPI_NAMEDCOST_IDLE_ONLY=1 measures the idle stretches only.
func BenchmarkNamedCostOfPatch(b *testing.B) {
	idle := 30 * time.Second
	if v := os.Getenv("ZONEAPI_NAMEDCOST_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			idle = d
		}
	}
	ns := startNamed(b)
	pid := ns.Pid()
	time.Sleep(time.Second)
	st0, c0 := namedStats(ns), threadsCPU(pid)
	time.Sleep(idle)
	fmt.Printf("named idle for %s, alone: CPU %s; its statistics counted %s\n", idle, threadsCPU(pid)-c0, statsDiff(st0, namedStats(ns)))

	bare := testcaddy.FreePort(b)
	extra := "powerdns"
	if os.Getenv("ZONEAPI_NAMEDCOST_STATS") == "1" {
		extra += "\n\t\t\tstatistics_channel " + ns.StatsAddr
	}
	c := startCaddy(b, ns, caddyOpts{handle: "/api*", extra: extra,
		sites: fmt.Sprintf("http://127.0.0.1:%d {\n\tbind 127.0.0.1\n\trespond 204\n}\n", bare)})
	ours := newPDNSTarget("zone_api (BIND)", c.Base, testToken)
	empty := newPDNSTarget("Caddy alone (respond 204)", fmt.Sprintf("http://127.0.0.1:%d", bare), "")
	for _, z := range []string{"bench.test", "pinned.test"} {
		if r := ours.req("POST", "/api/v1/servers/localhost/zones", `{"name":"`+z+`.","kind":"Native","nameservers":["ns1.example.net."]}`); r != 201 {
			b.Fatalf("create %s: %d", z, r)
		}
	}
	for i := 1; i < 299; i++ {
		body := fmt.Sprintf(`{"name":"z%05d.list.","kind":"Native","nameservers":["ns1.example.net."]}`, i)
		if st := ours.req("POST", "/api/v1/servers/localhost/zones?rrsets=false", body); st != 201 {
			b.Fatalf("fill %d: %d", i, st)
		}
	}
	if st, _ := ours.get("/api/v1/servers/localhost/zones"); st != 200 {
		b.Fatalf("zone list: %d", st)
	}
	time.Sleep(3 * time.Second)
	st0, c0, k0 := namedStats(ns), threadsCPU(pid), threadsCPU(c.Process().Pid)
	time.Sleep(idle)
	fmt.Printf("named idle for %s, Caddy attached (300 zones, after a GET /zones): named CPU %s, Caddy CPU %s; named's statistics counted %s\n",
		idle, threadsCPU(pid)-c0, threadsCPU(c.Process().Pid)-k0, statsDiff(st0, namedStats(ns)))
	if os.Getenv("ZONEAPI_NAMEDCOST_IDLE_ONLY") == "1" {
		return
	}

	patch := patchOp(ours)
	floor := newPDNSFloor(b, ns, "raw", "pinned.test", true)
	raw := func(i int) int { return floor.send(ns.TSIGKeyName, i) }
	for i := 0; i < 100; i++ { // warm: the history's first read of each RRset
		patch(i)
		raw(i)
	}
	type acc struct {
		el, named, caddy time.Duration
		n                int
		sw               int64
		stats            map[string]float64
	}
	accs := map[string]*acc{}
	var order []string
	var interval time.Duration // the PATCH's, from its last slice
	slice := func(name string, n int, do func(int) int, paced bool) {
		a := accs[name]
		if a == nil {
			a = &acc{stats: map[string]float64{}}
			accs[name] = a
			order = append(order, name)
		}
		s0, n0, k0, w0 := namedStats(ns), threadsCPU(pid), threadsCPU(c.Process().Pid), namedSwitches(pid)
		t0 := time.Now()
		for i := 0; i < n; i++ {
			if paced {
				if d := time.Until(t0.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
			}
			if st := do(1000 + a.n + i); st != 204 {
				b.Fatalf("%s: %d", name, st)
			}
		}
		el := time.Since(t0)
		a.el += el
		a.named += threadsCPU(pid) - n0
		a.caddy += threadsCPU(c.Process().Pid) - k0
		a.sw += namedSwitches(pid) - w0
		a.n += n
		for k, v := range namedStats(ns) {
			a.stats[k] += v - s0[k]
		}
		if name == "PATCH" {
			interval = el / time.Duration(n)
		}
	}
	for r := 0; r < 20; r++ {
		slice("PATCH", 50, patch, false)
		if r%2 == 0 {
			slice("raw UPDATE, zone_api's message, back to back", 50, raw, false)
			slice("raw UPDATE, zone_api's message, paced as the PATCH", 50, raw, true)
		} else {
			slice("raw UPDATE, zone_api's message, paced as the PATCH", 50, raw, true)
			slice("raw UPDATE, zone_api's message, back to back", 50, raw, false)
		}
		slice("Caddy alone (respond 204), back to back", 50, patchOp(empty), false)
		slice("Caddy alone (respond 204), paced as the PATCH", 50, patchOp(empty), true)
	}
	fmt.Printf("\n| c=1, 20 slices of 50 each, alternating | requests/s | named CPU per request | Caddy CPU per request | named context switches per request | named's statistics per request |\n|---|---|---|---|---|---|\n")
	for _, k := range order {
		a := accs[k]
		var st []string
		for s, v := range a.stats {
			if v != 0 {
				st = append(st, fmt.Sprintf("%s %.2f", s, v/float64(a.n)))
			}
		}
		sort.Strings(st)
		fmt.Printf("| %s | %.0f | %s | %s | %.1f | %s |\n", k, float64(a.n)/a.el.Seconds(), ms(a.named/time.Duration(a.n)), ms(a.caddy/time.Duration(a.n)),
			float64(a.sw)/float64(a.n), strings.Join(st, ", "))
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at the end: %s", la)
	}
}

// patchOp is BenchmarkPowerDNSVersusPowerDNS's one-RRset PATCH of t.
func patchOp(t *pdnsTarget) func(int) int {
	return func(i int) int {
		body := fmt.Sprintf(`{"rrsets":[{"name":"t%d.%s.","type":"TXT","ttl":60,"changetype":"REPLACE","records":[{"content":"\"v%d\"","disabled":false}]}]}`, i%50, t.zoneName(), i)
		return t.req("PATCH", "/api/v1/servers/localhost/zones/"+t.zoneName()+".", body)
	}
}

// namedStats reads the request counters of named's statistics channel
// (opcodes, query types, name server and socket statistics).
func namedStats(ns *testbind.Server) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get("http://" + ns.StatsAddr + "/json/v1/server")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&v)
	for _, sec := range []string{"opcodes", "qtypes", "nsstats", "sockstats"} {
		m, _ := v[sec].(map[string]any)
		for k, x := range m {
			if f, ok := x.(float64); ok {
				out[sec+"."+k] = f
			}
		}
	}
	return out
}

// statsDiff lists the counters that moved from a to b (the statistics
// channel's own read counts one TCP connection each).
func statsDiff(a, b map[string]float64) string {
	var s []string
	for k, v := range b {
		if d := v - a[k]; d != 0 {
			s = append(s, fmt.Sprintf("%s %.0f", k, d))
		}
	}
	sort.Strings(s)
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// namedSwitches is the context switches of process pid's live threads,
// voluntary and not (/proc/<pid>/task/*/status).
func namedSwitches(pid int) int64 {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "voluntary_ctxt_switches:") || strings.HasPrefix(l, "nonvoluntary_ctxt_switches:") {
				var v int64
				fmt.Sscan(strings.Fields(l)[1], &v)
				n += v
			}
		}
	}
	return n
}

// BenchmarkNamedWatchCost measures what the restart watch's read costs
// named (its CPU per read) at 300 and ZONEAPI_NAMEDCOST_ZONES (default
// 20,000) zones: `rndc status`, which counts every zone, against the
// statistics channel's server counters (/json/v1/server, what
// zoneservice.StatisticsStatus reads when there is a statistics channel),
// and its zone list (/json/v1/zones, the inventory's read) for scale.
// The zones are static primaries of named.conf sharing one file.
func BenchmarkNamedWatchCost(b *testing.B) {
	big := 20000
	if v := os.Getenv("ZONEAPI_NAMEDCOST_ZONES"); v != "" {
		fmt.Sscan(v, &big)
	}
	for _, n := range []int{300, big} {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "zone \"s%06d.static\" { type primary; file \"static.db\"; };\n", i)
		}
		ns := testbind.Start(b, &testbind.Options{ExtraConfig: sb.String(), BeforeStart: func(s *testbind.Server) error {
			return os.WriteFile(filepath.Join(s.Dir, "static.db"), []byte("$TTL 3600\n@ SOA ns1.example.net. h.example.net. 1 3600 600 86400 60\n@ NS ns1.example.net.\n"), 0o644)
		}})
		time.Sleep(2 * time.Second)
		pid := ns.Pid()
		per := func(k int, do func() error) time.Duration {
			c0 := threadsCPU(pid)
			for i := 0; i < k; i++ {
				if err := do(); err != nil {
					b.Fatal(err)
				}
			}
			return (threadsCPU(pid) - c0) / time.Duration(k)
		}
		get := func(path string) func() error {
			return func() error {
				resp, err := http.Get("http://" + ns.StatsAddr + path)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				return resp.Body.Close()
			}
		}
		status := per(40, func() error { _, err := ns.RNDC("status"); return err })
		server := per(40, get("/json/v1/server"))
		zones := per(5, get("/json/v1/zones"))
		fmt.Printf("%d zones: named's CPU per rndc status %s, per /json/v1/server %s, per /json/v1/zones %s\n", n, ms(status), ms(server), ms(zones))
		ns.Stop()
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at the end: %s", la)
	}
}
