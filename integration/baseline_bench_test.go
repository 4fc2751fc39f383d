package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkAgainstBaseline compares this tree's Caddy with another build
// of the module, $ZONEAPI_BASELINE_CADDY (e.g. scripts/build.sh run in a
// worktree of an older commit), in one run against one named, the two
// builds and raw RFC 2136 alternating round by round:
//
//   - record adds at concurrency 1 and 8 through the lean HTTP/1.1
//     client, with raw RFC 2136 adds in the same rounds; at concurrency 1
//     our own cost per request is API p50 minus raw p50, and also (less
//     exposed to how named treats the two clients) the API's mean latency
//     minus the mean UPDATE round trip the build timed itself
//     (zoneapi_dns_update_duration_seconds);
//   - a 1,000-change PATCH against the same 1,000 adds sent raw as one
//     UPDATE (bodies and messages built before the clock starts, so both
//     sides measure the server's work), with the CPU time each PATCH cost
//     Caddy and named ($ZONEAPI_BENCH_PATCH_ROUNDS rounds, default 7);
//   - zone create p50, with the CPU each create cost Caddy and named;
//   - Caddy's CPU time per request (its threads' schedstat), at
//     concurrency 1 and 8 in the record adds' rounds, and at concurrency
//     1 for the REST API's record add against the PowerDNS-compatible
//     API's one-RRset PATCH (a TXT REPLACE, as in
//     BenchmarkPowerDNSVersusPowerDNS), both builds in alternating
//     rounds ($ZONEAPI_BENCH_CPU_N requests per method, default 1000):
//     the CPU figures are the steadier ones on a loaded machine;
//   - at concurrency 1, in the same rounds, two floors: a bare Go HTTP
//     server that forwards each request as one UPDATE and does nothing
//     else (testdata/floorserver: the least any Go front end of named
//     costs), and Caddy answering with respond (HTTP through Caddy).
//
// Both Caddys front the same named, each with a zone directory (and so a
// change history) of its own, and work on zones of their own. It prints a table and
// asserts nothing about time. Without $ZONEAPI_BASELINE_CADDY it skips.
// $ZONEAPI_BENCH_EXTRA adds lines to this tree's zone_api block (such as
// "history off", to measure the request path without the change
// history's append).
func BenchmarkAgainstBaseline(b *testing.B) {
	base := os.Getenv("ZONEAPI_BASELINE_CADDY")
	if base == "" {
		b.Skip("ZONEAPI_BASELINE_CADDY names no baseline caddy build")
	}
	loadAtStart := loadAverage()
	ns := startNamed(b)
	respondPort := freePort(b)
	builds := []struct {
		name string
		c    *caddy
	}{
		{"new", startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "log_filter warn\npowerdns\n" + os.Getenv("ZONEAPI_BENCH_EXTRA"), sites: respondSite(respondPort)})},
		// A zone directory of its own: one process writes a directory's
		// change history, and the baseline records its own too.
		{"baseline", startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "log_filter warn\npowerdns", bin: base, zoneDir: baselineDir(b, ns)})},
	}
	for _, bd := range builds {
		for _, z := range []string{"rec-" + bd.name + ".test", "batch-" + bd.name + ".test", "cpu-" + bd.name + ".test"} {
			if r := bd.c.do("POST", "/api/v1/zones", zoneBody(z)); r.status != http.StatusCreated {
				b.Fatalf("create %s: %d %s", z, r.status, r.raw)
			}
		}
	}
	for _, z := range []string{"rec-raw.test", "batch-raw.test", "batch-rawp.test", "rec-floor.test"} {
		if r := builds[0].c.do("POST", "/api/v1/zones", zoneBody(z)); r.status != http.StatusCreated {
			b.Fatalf("create %s: %d %s", z, r.status, r.raw)
		}
	}
	n := 2000
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	for _, bd := range builds {
		runConcurrent("warm", 2, 100, leanAPIWorker(b, bd.c, "rec-"+bd.name+".test", "w"))
	}
	runConcurrent("warm", 2, 100, rawWorker(b, ns, "rec-raw.test", "w"))
	floorAddr := startFloorServer(b, ns, "rec-floor.test")
	respondAddr := fmt.Sprintf("127.0.0.1:%d", respondPort)

	// What each build timed itself: its UPDATE round trips
	// (zoneapi_dns_update_duration_seconds) and its handler's time for
	// POST /records (zoneapi_http_request_duration_seconds), as running
	// sums and counts, to split a request's time between named, the
	// handler and the rest (HTTP, Caddy, the client, the kernel).
	type timed struct{ updSum, updN, hSum, hN float64 }
	timings := func(c *caddy) (t timed) {
		resp, err := http.Get(c.Base + "/metrics")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				continue
			}
			v, _ := strconv.ParseFloat(f[1], 64)
			records := strings.Contains(f[0], `method="POST"`) && strings.Contains(f[0], `route="/api/v1/zones/{name}/records"`)
			switch {
			case strings.HasPrefix(f[0], "zoneapi_dns_update_duration_seconds_sum"):
				t.updSum += v
			case strings.HasPrefix(f[0], "zoneapi_dns_update_duration_seconds_count"):
				t.updN += v
			case strings.HasPrefix(f[0], "zoneapi_http_request_duration_seconds_sum") && records:
				t.hSum += v
			case strings.HasPrefix(f[0], "zoneapi_http_request_duration_seconds_count") && records:
				t.hN += v
			}
		}
		return t
	}
	secs := func(sum, n float64) time.Duration { return time.Duration(sum / n * float64(time.Second)) }
	var ownMean [2]time.Duration

	fmt.Printf("\nrecord adds, this tree vs the baseline build, one named, %d adds per method and concurrency, 10 interleaved rounds:\n\n", n)
	fmt.Printf("| method | concurrency | records/s | p50 | p99 | errors | throughput vs raw | own cost (p50 - raw p50) |\n|---|---|---|---|---|---|---|---|\n")
	for _, conc := range []int{1, 8} {
		var before [2]timed
		for i, bd := range builds {
			before[i] = timings(bd.c)
		}
		names := []string{"API, this tree", "API, baseline build", "raw RFC 2136 (Go, TSIG, persistent TCP)"}
		workers := []func(int) func() func(int) error{
			func(r int) func() func(int) error {
				return leanAPIWorker(b, builds[0].c, "rec-new.test", fmt.Sprintf("a%d-%d-", conc, r))
			},
			func(r int) func() func(int) error {
				return leanAPIWorker(b, builds[1].c, "rec-baseline.test", fmt.Sprintf("a%d-%d-", conc, r))
			},
			func(r int) func() func(int) error {
				return rawWorker(b, ns, "rec-raw.test", fmt.Sprintf("r%d-%d-", conc, r))
			},
		}
		if conc == 1 { // the floors, in the same rounds
			names = append(names, floorServerName, respondName)
			workers = append(workers,
				func(r int) func() func(int) error {
					return leanWorkerAt(b, floorAddr, "rec-floor.test", "f", testToken)
				},
				func(r int) func() func(int) error {
					return leanWorkerAt(b, respondAddr, "rec-new.test", "x", testToken)
				})
		}
		// Caddy's CPU in each method's rounds: this tree's for its API
		// and for respond (a site of the same Caddy), the baseline's for
		// its API.
		caddyOf := map[int]int{0: builds[0].c.Process().Pid, 1: builds[1].c.Process().Pid, 4: builds[0].c.Process().Pid}
		cpu := make([]time.Duration, len(names))
		res := interleavedAround(10, conc, n, names, workers, func(m int) func() {
			pid, ok := caddyOf[m]
			if !ok {
				return nil
			}
			c0 := threadsCPU(pid)
			return func() { cpu[m] += threadsCPU(pid) - c0 }
		})
		raw := res[2]
		for _, r := range res {
			fmt.Printf("| %s | %d | %.0f | %s | %s | %d | %.0f%% | %s |\n", r.method, r.conc, r.perSec(), msf(r.p50), msf(r.p99), r.errors,
				100*r.perSec()/raw.perSec(), msf(r.p50-raw.p50))
			if r.firstErrMsg != "" {
				fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
			}
		}
		fmt.Printf("|   Caddy's CPU per request (its threads' schedstat): this tree %s, baseline %s (%.2fx)", msf(cpu[0]/time.Duration(res[0].n)), msf(cpu[1]/time.Duration(res[1].n)), ratio(cpu[0]/time.Duration(res[0].n), cpu[1]/time.Duration(res[1].n)))
		if conc == 1 {
			fmt.Printf(", respond %s", msf(cpu[4]/time.Duration(res[4].n)))
		}
		fmt.Printf(" |\n")
		b.ReportMetric(float64(cpu[0]/time.Duration(res[0].n))/1e6, fmt.Sprintf("caddy-cpu-ms-c%d-new", conc))
		b.ReportMetric(float64(cpu[1]/time.Duration(res[1].n))/1e6, fmt.Sprintf("caddy-cpu-ms-c%d-baseline", conc))
		if conc == 1 {
			for i, bd := range builds {
				a := timings(bd.c)
				u := secs(a.updSum-before[i].updSum, a.updN-before[i].updN)
				h := secs(a.hSum-before[i].hSum, a.hN-before[i].hN)
				ownMean[i] = res[i].mean - u
				fmt.Printf("|   %s: mean %s = named's UPDATE round trip %s + the handler's own %s + HTTP, Caddy, client %s: own cost %s per add (mean) |\n",
					bd.name, msf(res[i].mean), msf(u), msf(h-u), msf(res[i].mean-h), msf(ownMean[i]))
			}
			fl, rp := res[3], res[4]
			fmt.Printf("|   floors (p50): the bare Go HTTP server costs %s over raw; Caddy's respond costs its client %s; this tree is %s over the bare server |\n",
				msf(fl.p50-raw.p50), msf(rp.p50), msf(res[0].p50-fl.p50))
			b.ReportMetric((fl.p50-raw.p50).Seconds()*1000, "floor-server-ms-c1")
			b.ReportMetric(rp.p50.Seconds()*1000, "respond-p50-ms-c1")
			b.ReportMetric((res[0].p50-raw.p50).Seconds()*1000, "own-ms-c1-new")
			b.ReportMetric((res[1].p50-raw.p50).Seconds()*1000, "own-ms-c1-baseline")
			b.ReportMetric(ownMean[0].Seconds()*1000, "own-mean-ms-c1-new")
			b.ReportMetric(ownMean[1].Seconds()*1000, "own-mean-ms-c1-baseline")
		}
	}

	// 1,000-change batches: PATCH through each build, one UPDATE raw; the
	// builds go first in turn (buildOrder), so that neither always follows
	// the raw UPDATEs of the round before.
	// $ZONEAPI_BENCH_PATCH_ROUNDS sets the rounds (default 7).
	rounds := 7
	if s := os.Getenv("ZONEAPI_BENCH_PATCH_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	patchBody := func(prefix string) []byte {
		changes := make([]map[string]any, 1000)
		for i := range changes {
			changes[i] = map[string]any{"op": "add", "name": fmt.Sprintf("%s-%04d", prefix, i), "type": "A", "value": "192.0.2.2"}
		}
		j, _ := json.Marshal(map[string]any{"changes": changes})
		return j
	}
	// rawMsg is the batch as a plain UPDATE; with prereqs, it also
	// carries the prerequisite the API puts before each add of a new
	// name ("no CNAME there", RFC 2136 2.4.3), to tell named's work on
	// the API's message from the API's own.
	rawMsg := func(zone, prefix string, prereqs bool) *dns.Msg {
		m := new(dns.Msg)
		m.SetUpdate(zone + ".")
		rrs := make([]dns.RR, 1000)
		for i := range rrs {
			rrs[i], _ = dns.NewRR(fmt.Sprintf("%s-%04d.%s. 60 IN A 192.0.2.2", prefix, i, zone))
		}
		if prereqs {
			m.Compress = true // as the API sends it: 65,535 bytes at most
			for _, rr := range rrs {
				m.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: rr.Header().Name, Rrtype: dns.TypeCNAME}}})
			}
		}
		m.Insert(rrs)
		return m
	}
	sendRaw := func(m *dns.Msg) error { return sendSigned(ns, m) }
	var patch [2][]time.Duration
	// The CPU time each PATCH cost its Caddy and named (threadsCPU; the
	// requests run one at a time), summed over the rounds.
	var patchCPU [2][2]time.Duration
	var rawBatch, rawPrereq []time.Duration
	for k := 0; k < rounds; k++ {
		for _, i := range buildOrder(k) {
			bd := builds[i]
			body := patchBody(fmt.Sprintf("k%d", k))
			c0, n0 := threadsCPU(bd.c.Process().Pid), threadsCPU(ns.Pid())
			t0 := time.Now()
			r := bd.c.send("PATCH", "/api/v1/zones/batch-"+bd.name+".test/records", body, map[string]string{"Authorization": "Bearer " + testToken})
			patch[i] = append(patch[i], time.Since(t0))
			patchCPU[i][0] += threadsCPU(bd.c.Process().Pid) - c0
			patchCPU[i][1] += threadsCPU(ns.Pid()) - n0
			if r.status != http.StatusOK {
				b.Fatalf("%s batch: %d %s", bd.name, r.status, r.raw)
			}
		}
		m := rawMsg("batch-raw.test", fmt.Sprintf("k%d", k), false)
		t0 := time.Now()
		if err := sendRaw(m); err != nil {
			b.Fatalf("raw batch: %v", err)
		}
		rawBatch = append(rawBatch, time.Since(t0))
		m = rawMsg("batch-rawp.test", fmt.Sprintf("k%d", k), true)
		t0 = time.Now()
		if err := sendRaw(m); err != nil {
			b.Fatalf("raw batch with prerequisites: %v", err)
		}
		rawPrereq = append(rawPrereq, time.Since(t0))
	}
	median := func(d []time.Duration) time.Duration {
		s := append([]time.Duration(nil), d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	rb := median(rawBatch)
	fmt.Printf("\n1,000-change batch, median of %d interleaved rounds: raw RFC 2136 UPDATE %s\n\n| build | PATCH | vs raw | CPU per PATCH: Caddy + named (mean) |\n|---|---|---|---|\n", rounds, msf(rb))
	for i, bd := range builds {
		fmt.Printf("| %s | %s | %.2fx | %s + %s |\n", bd.name, msf(median(patch[i])), ratio(median(patch[i]), rb),
			msf(patchCPU[i][0]/time.Duration(rounds)), msf(patchCPU[i][1]/time.Duration(rounds)))
	}
	rp := median(rawPrereq)
	fmt.Printf("| raw UPDATE with the API's %d \"no CNAME\" prerequisites (not a build: named's share of the API's message) | %s | %.2fx |\n", 1000, msf(rp), ratio(rp, rb))
	b.ReportMetric(ratio(rp, rb), "raw-prereq-vs-raw-x")
	b.ReportMetric(ratio(median(patch[0]), rb), "patch-vs-raw-x-new")
	b.ReportMetric(ratio(median(patch[1]), rb), "patch-vs-raw-x-baseline")

	// Caddy's CPU per request at concurrency 1: the REST API's record
	// add against the PowerDNS-compatible API's one-RRset PATCH, both
	// builds, alternating round by round.
	cpuN := 1000
	if s := os.Getenv("ZONEAPI_BENCH_CPU_N"); s != "" {
		fmt.Sscan(s, &cpuN)
	}
	var cpuNames []string
	var cpuWorkers []func(int) func() func(int) error
	var cpuPids []int
	for _, bd := range builds {
		addr := strings.TrimPrefix(bd.c.Base, "http://")
		cpuNames = append(cpuNames, "REST record add, "+bd.name, "PowerDNS API one-RRset PATCH, "+bd.name)
		cpuWorkers = append(cpuWorkers,
			func(r int) func() func(int) error {
				return leanWorkerAt(b, addr, "rec-"+bd.name+".test", fmt.Sprintf("cpu%d-", r), testToken)
			},
			func(r int) func() func(int) error {
				return leanPDNSPatchWorker(b, addr, "cpu-"+bd.name+".test", testToken)
			})
		cpuPids = append(cpuPids, bd.c.Process().Pid, bd.c.Process().Pid)
	}
	cpuUsed := make([]time.Duration, len(cpuNames))
	cpuRes := interleavedAround(10, 1, cpuN, cpuNames, cpuWorkers, func(m int) func() {
		c0 := threadsCPU(cpuPids[m])
		return func() { cpuUsed[m] += threadsCPU(cpuPids[m]) - c0 }
	})
	fmt.Printf("\nCaddy's CPU per request, concurrency 1, %d requests per method, 10 interleaved rounds:\n\n| method | requests/s | p50 | errors | Caddy CPU per request |\n|---|---|---|---|---|\n", cpuN)
	per := make([]time.Duration, len(cpuRes))
	for m, r := range cpuRes {
		per[m] = cpuUsed[m] / time.Duration(r.n)
		fmt.Printf("| %s | %.0f | %s | %d | %s |\n", r.method, r.perSec(), msf(r.p50), r.errors, msf(per[m]))
		if r.firstErrMsg != "" {
			fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
		}
	}
	for i, bd := range builds {
		fmt.Printf("%s: PowerDNS PATCH / REST add, Caddy CPU: %.2fx\n", bd.name, ratio(per[2*i+1], per[2*i]))
		b.ReportMetric(ratio(per[2*i+1], per[2*i]), "pdns-patch-vs-rest-add-cpu-x-"+bd.name)
	}
	fmt.Printf("this tree / baseline, Caddy CPU: REST add %.2fx, PowerDNS PATCH %.2fx\n", ratio(per[0], per[2]), ratio(per[1], per[3]))

	// Zone create, alternating.
	const creates = 60
	var create [2][]time.Duration
	var createCPU [2][2]time.Duration // Caddy's and named's, summed
	for k := 0; k < creates; k++ {
		for _, i := range buildOrder(k) {
			bd := builds[i]
			body, _ := json.Marshal(zoneBody(fmt.Sprintf("cr%03d-%s.bench", k, bd.name)))
			c0, n0 := threadsCPU(bd.c.Process().Pid), threadsCPU(ns.Pid())
			t0 := time.Now()
			r := bd.c.send("POST", "/api/v1/zones", body, map[string]string{"Authorization": "Bearer " + testToken})
			create[i] = append(create[i], time.Since(t0))
			createCPU[i][0] += threadsCPU(bd.c.Process().Pid) - c0
			createCPU[i][1] += threadsCPU(ns.Pid()) - n0
			if r.status != http.StatusCreated {
				b.Fatalf("%s create: %d %s", bd.name, r.status, r.raw)
			}
		}
	}
	fmt.Printf("\nzone create, %d each, alternating:\n\n| build | p50 | CPU per create: Caddy + named (mean) |\n|---|---|---|\n", creates)
	for i, bd := range builds {
		fmt.Printf("| %s | %s | %s + %s |\n", bd.name, msf(median(create[i])), msf(createCPU[i][0]/creates), msf(createCPU[i][1]/creates))
	}
	fmt.Printf("\nnew/baseline: create p50 %.2fx, PATCH %.2fx\n", ratio(median(create[0]), median(create[1])), ratio(median(patch[0]), median(patch[1])))
	fmt.Printf("load average at the start: %s; at the end: %s\n", loadAtStart, loadAverage())
}

// floorServerName and respondName are the floors' rows.
const (
	floorServerName = "floor: bare Go HTTP server, one UPDATE per request (testdata/floorserver)"
	respondName     = "floor: Caddy answering 201 with respond, no work"
)

// respondSite is a site block of Caddy answering every request 201 with a
// small JSON body and doing nothing else: the floor of HTTP through Caddy.
func respondSite(port int) string {
	return fmt.Sprintf("http://127.0.0.1:%d {\n\tbind 127.0.0.1\n\trespond `{\"success\":true}` 201\n}\n", port)
}

// startFloorServer builds and starts testdata/floorserver against zone of
// ns, stopped by its pid when the benchmark ends, and returns its address.
func startFloorServer(b *testing.B, ns *testbind.Server, zone string) string {
	bin := filepath.Join(b.TempDir(), "floorserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/floorserver").CombinedOutput(); err != nil {
		b.Fatalf("building the floor server: %v\n%s", err, out)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(b))
	cmd := exec.Command(bin, addr, ns.DNSAddr, ns.TSIGKeyName, ns.TSIGSecret, zone)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
	}
	b.Fatal("the floor server did not listen")
	return ""
}

// loadAverage is the machine's 1-, 5- and 15-minute load averages.
func loadAverage() string {
	la, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(la))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// baselineDir makes the baseline Caddy's zone directory beside named's.
func baselineDir(b *testing.B, ns *testbind.Server) string {
	dir := ns.ZoneDir + "-baseline"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// leanPDNSPatchWorker sends the PowerDNS-compatible API's one-RRset PATCH
// of BenchmarkPowerDNSVersusPowerDNS (a TXT REPLACE at one of 50 names of
// zone) over one kept-alive HTTP/1.1 connection to addr, which must
// answer 204.
func leanPDNSPatchWorker(t testing.TB, addr, zone, key string) func() func(int) error {
	return func() func(int) error {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		br := bufio.NewReader(conn)
		var buf bytes.Buffer
		return func(i int) error {
			body := fmt.Sprintf(`{"rrsets":[{"name":"t%d.%s.","type":"TXT","ttl":60,"changetype":"REPLACE","records":[{"content":"\"v%d\"","disabled":false}]}]}`, i%50, zone, i)
			buf.Reset()
			fmt.Fprintf(&buf, "PATCH /api/v1/servers/localhost/zones/%s. HTTP/1.1\r\nHost: %s\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
				zone, addr, key, len(body), body)
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write(buf.Bytes()); err != nil {
				return err
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return err
			}
			raw, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusNoContent {
				return fmt.Errorf("status %d: %s", resp.StatusCode, raw)
			}
			return nil
		}
	}
}

// buildOrder is the order of the two builds in round k of the PATCHes and
// creates: each goes first every other round, so that what the round
// before left named doing weighs on both alike.
func buildOrder(k int) []int {
	if k%2 == 1 {
		return []int{1, 0}
	}
	return []int{0, 1}
}
