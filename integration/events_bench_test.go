package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// BenchmarkEvents measures, in one run against one named, record adds at
// c=1 and c=8 through a Caddy with the change history, one webhook (a
// local receiver answering 204) and one event-stream client on, against a
// Caddy with the history off (so no events), in interleaved rounds on
// zones of their own; and the lag from a change's answer to its event on
// the stream (p50, p99). ZONEAPI_BENCH_N sets the adds per method and
// concurrency (default 2000). Each row has the CPU per add of its Caddy,
// its named and its receiver and stream client (from /proc). With
// ZONEAPI_BENCH_BEFORE=<caddy binary> the rounds include the first method
// again with that build (a same-run before and after); with
// ZONEAPI_BENCH_PROFILE=<dir> each Caddy is profiled afterwards
// (profileEach).
func BenchmarkEvents(b *testing.B) {
	ns := startNamed(b)
	// The receiver and the stream client of the throughput rounds are
	// processes of their own (a `caddy respond` answering 204, a `curl
	// -N`), as they would be on other hosts: in this process they would
	// take the load generator's CPU.
	hookAddr := fmt.Sprintf("127.0.0.1:%d", testcaddy.FreePort(b))
	hookProc := startHookReceiver(b, hookAddr)

	on := startCaddy(b, ns, caddyOpts{extra: fmt.Sprintf(`log_filter warn
			events {
				webhook http://%s/hook {
					name bench
					secret %s
				}
			}`, hookAddr, hookSecret)})
	off := startCaddy(b, ns, caddyOpts{extra: "log_filter warn\n\t\t\thistory off"})
	// The history alone (no webhook, no stream client) needs a zone
	// directory of its own (one process writes a directory's history),
	// so a named of its own: it tells the events' cost from the
	// history's.
	ns2 := startNamed(b)
	hist := startCaddy(b, ns2, caddyOpts{extra: "log_filter warn"})
	const zoneOn, zoneOff, zoneHist = "on.events-bench.test", "off.events-bench.test", "hist.events-bench.test"
	expect(b, on.do("POST", "/api/v1/zones", zoneBody(zoneOn)), 201, "create")
	expect(b, off.do("POST", "/api/v1/zones", zoneBody(zoneOff)), 201, "create")
	expect(b, hist.do("POST", "/api/v1/zones", zoneBody(zoneHist)), 201, "create")
	curlProc := benchProcess(b, "curl", "-sN", "-o", "/dev/null", "-H", "Authorization: Bearer "+testToken, on.Base+"/api/v1/events")
	n := 2000
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	loadBefore := procLoadAvg()
	runConcurrent("warm", 2, 50, leanAPIWorker(b, on, zoneOn, "w"))
	runConcurrent("warm", 2, 50, leanAPIWorker(b, off, zoneOff, "w"))
	runConcurrent("warm", 2, 50, leanAPIWorker(b, hist, zoneHist, "w"))

	methods := []benchMethod{
		{name: "history + 1 webhook + 1 stream on", c: on, zone: zoneOn, prefix: "e", shared: true, receiver: hookProc.Process.Pid, stream: curlProc.Process.Pid},
		{name: "history off (no events)", c: off, zone: zoneOff, prefix: "o", shared: true},
		{name: "history on, no webhook or stream (another named)", c: hist, zone: zoneHist, prefix: "h"},
	}
	if bin := os.Getenv("ZONEAPI_BENCH_BEFORE"); bin != "" {
		// The first method again with another build of Caddy (the code
		// before a change, say), on a named, receiver and stream client
		// of its own: a same-run before and after.
		methods = append(methods, beforeMethod(b, bin))
	}
	// The CPU each process used, per add: each Caddy's, each method's
	// own named's, receiver's and stream client's over the whole of a
	// concurrency's rounds (a webhook that falls behind delivers during
	// the other methods' rounds), the shared named's during each
	// method's own rounds.
	var rows []runResult
	var cpus [][]cpuPerAdd
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	for _, conc := range []int{1, 8} {
		start := make([]cpuPerAdd, len(methods))
		for i, m := range methods {
			start[i] = m.cpu()
		}
		namedIn := make([]time.Duration, len(methods))
		workers := make([]func(int) func() func(int) error, len(methods))
		for i, m := range methods {
			workers[i] = func(r int) func() func(int) error {
				return leanAPIWorker(b, m.c, m.zone, fmt.Sprintf("%s%d-%d-", m.prefix, conc, r))
			}
		}
		res := interleavedAround(10, conc, n, names, workers, func(m int) func() {
			if !methods[m].shared {
				return nil
			}
			t0 := procCPU(ns.Pid())
			return func() { namedIn[m] += procCPU(ns.Pid()) - t0 }
		})
		cpu := make([]cpuPerAdd, len(methods))
		for i, m := range methods {
			end := m.cpu()
			per := func(t time.Duration) time.Duration { return t / time.Duration(res[i].n) }
			cpu[i] = cpuPerAdd{caddy: per(end.caddy - start[i].caddy), named: per(end.named - start[i].named),
				receiver: per(end.receiver - start[i].receiver), stream: per(end.stream - start[i].stream)}
			if m.shared {
				cpu[i].named = per(namedIn[i])
			}
		}
		rows = append(rows, res...)
		cpus = append(cpus, cpu)
	}
	// Every event reaches the webhook.
	var st map[string]webhookStatus
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st = webhooksOf(b, on)
		if st["bench"].Behind == 0 {
			break
		}
	}

	// The lag from a change's answer to its event on the stream, read
	// by a client in this process: 500 adds at c=1, then at c=8.
	stream := followEvents(b, func() string { return on.Base }, testToken, "")
	time.Sleep(200 * time.Millisecond)
	var answered sync.Map
	timed := func(prefix string) func() func(int) error {
		inner := leanAPIWorker(b, on, zoneOn, prefix)
		return func() func(int) error {
			op := inner()
			return func(i int) error {
				err := op(i)
				answered.Store(fmt.Sprintf("%s%06d", prefix, i), time.Now())
				return err
			}
		}
	}
	runConcurrent("lag", 1, 500, timed("lag1-"))
	runConcurrent("lag", 8, 500, timed("lag8-"))
	evs := stream.waitEvents("the lag runs' events", func(evs []sseEvent) bool { return len(evs) >= 1000 })
	var lags []time.Duration
	for _, e := range evs {
		for _, a := range e.Entry.Added {
			if t0, ok := answered.Load(firstLabel(a.Name)); ok {
				lags = append(lags, e.At.Sub(t0.(time.Time)))
			}
		}
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })

	fmt.Printf("\nrecord adds, %d per method and concurrency, 10 interleaved rounds (load average %s before, %s after):\n\n", n, loadBefore, procLoadAvg())
	fmt.Printf("| method | concurrency | records/s | p50 | p99 | errors | throughput vs off | CPU per add: caddy | named | webhook receiver | stream client | total |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	k := len(methods)
	for i, r := range rows {
		base := rows[i/k*k+1]
		c := cpus[i/k][i%k]
		fmt.Printf("| %s | %d | %.0f | %s | %s | %d | %.1f%% | %s | %s | %s | %s | %s |\n", r.method, r.conc, r.perSec(), msf(r.p50), msf(r.p99), r.errors, 100*r.perSec()/base.perSec(),
			usf(c.caddy), usf(c.named), usf(c.receiver), usf(c.stream), usf(c.caddy+c.named+c.receiver+c.stream))
		if r.firstErrMsg != "" {
			fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
		}
	}
	for i := 0; i < len(rows); i += k {
		fmt.Printf("\nconcurrency %d: events on / history off %.1f%%; events on / history alone %.1f%%", rows[i].conc,
			100*rows[i].perSec()/rows[i+1].perSec(), 100*rows[i].perSec()/rows[i+2].perSec())
		if k > 3 {
			fmt.Printf("; the other build's events on / history off %.1f%%", 100*rows[i+3].perSec()/rows[i+1].perSec())
		}
		b.ReportMetric(100*rows[i].perSec()/rows[i+1].perSec(), fmt.Sprintf("on-vs-off-%%-c%d", rows[i].conc))
		b.ReportMetric(100*rows[i].perSec()/rows[i+2].perSec(), fmt.Sprintf("on-vs-history-%%-c%d", rows[i].conc))
	}
	fmt.Println()
	if len(lags) > 0 {
		p50, p99 := lags[len(lags)/2], lags[len(lags)*99/100]
		fmt.Printf("\nlag from a change's answer to its event on the stream, %d events (500 adds at c=1, 500 at c=8): p50 %s, p99 %s (negative: the event arrived before the client had read the answer)\n", len(lags), msf(p50), msf(p99))
		b.ReportMetric(p50.Seconds()*1000, "lag-p50-ms")
		b.ReportMetric(p99.Seconds()*1000, "lag-p99-ms")
	}
	fmt.Printf("the webhook after the rounds: %+v\n", st["bench"])
	fmt.Printf("load average at the end: %s\n", procLoadAvg())
	if dir := os.Getenv("ZONEAPI_BENCH_PROFILE"); dir != "" {
		profileEach(b, dir, map[string]*caddy{"on": on, "off": off, "hist": hist}, map[string]string{"on": zoneOn, "off": zoneOff, "hist": zoneHist})
	}
}

// benchMethod is one Caddy of BenchmarkEvents and what it adds to.
type benchMethod struct {
	name   string
	c      *caddy
	zone   string
	prefix string // of its records' names
	// shared: its named is the one shared by the first two methods.
	shared bool
	// receiver and stream are its receiver's and stream client's pids
	// (0: none).
	receiver, stream int
}

// cpu returns the CPU time the method's processes used so far.
func (m benchMethod) cpu() cpuPerAdd {
	c := cpuPerAdd{caddy: procCPU(m.c.Process().Pid), named: procCPU(m.c.ns.Pid())}
	c.receiver, c.stream = procCPU(m.receiver), procCPU(m.stream)
	return c
}

// beforeMethod is the method "history + 1 webhook + 1 stream on" with
// the Caddy binary bin, on a named, receiver and stream client of its
// own.
func beforeMethod(b *testing.B, bin string) benchMethod {
	hookAddr := fmt.Sprintf("127.0.0.1:%d", testcaddy.FreePort(b))
	hook := startHookReceiver(b, hookAddr)
	c := startCaddy(b, startNamed(b), caddyOpts{bin: bin, extra: fmt.Sprintf(`log_filter warn
			events {
				webhook http://%s/hook {
					name bench
					secret %s
				}
			}`, hookAddr, hookSecret)})
	const zone = "before.events-bench.test"
	expect(b, c.do("POST", "/api/v1/zones", zoneBody(zone)), 201, "create")
	curl := benchProcess(b, "curl", "-sN", "-o", "/dev/null", "-H", "Authorization: Bearer "+testToken, c.Base+"/api/v1/events")
	runConcurrent("warm", 2, 50, leanAPIWorker(b, c, zone, "w"))
	return benchMethod{name: "history + 1 webhook + 1 stream on, " + bin, c: c, zone: zone, prefix: "b", receiver: hook.Process.Pid, stream: curl.Process.Pid}
}

// cpuPerAdd is the CPU time per add of a method's processes.
type cpuPerAdd struct {
	caddy, named, receiver, stream time.Duration
}

// usf formats a CPU time per add in microseconds.
func usf(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }

// profileEach takes, for each Caddy and at c=1 and c=8, a CPU profile
// (Caddy's admin /debug/pprof/profile) while adds run for
// ZONEAPI_BENCH_PROFILE_SECONDS (default 5) on that Caddy alone, into
// dir/<name>-c<conc>.pprof (`go tool pprof -top build/caddy <file>`), and
// prints each window's adds per second and CPU per add.
func profileEach(b *testing.B, dir string, cs map[string]*caddy, zones map[string]string) {
	secs := 5
	if s := os.Getenv("ZONEAPI_BENCH_PROFILE_SECONDS"); s != "" {
		fmt.Sscan(s, &secs)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\nprofiles in %s, %d s each:\n", dir, secs)
	for _, conc := range []int{1, 8} {
		for _, name := range []string{"on", "hist", "off"} {
			c := cs[name]
			done := make(chan error, 1)
			path := fmt.Sprintf("%s/%s-c%d.pprof", dir, name, conc)
			go func() {
				resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", c.AdminAddr, secs))
				if err != nil {
					done <- err
					return
				}
				defer resp.Body.Close()
				f, err := os.Create(path)
				if err != nil {
					done <- err
					return
				}
				_, err = io.Copy(f, resp.Body)
				f.Close()
				done <- err
			}()
			cpu0 := procCPU(c.Process().Pid)
			ns0 := procCPU(c.ns.Pid())
			adds := runFor(conc, time.Duration(secs)*time.Second, leanAPIWorker(b, c, zones[name], fmt.Sprintf("p%s%d-", name, conc)))
			cpu := procCPU(c.Process().Pid) - cpu0
			nsCPU := procCPU(c.ns.Pid()) - ns0
			if err := <-done; err != nil {
				b.Fatalf("profile of %s: %v", name, err)
			}
			fmt.Printf("%s c=%d: %.0f adds/s, caddy %s, named %s per add (%s)\n", name, conc, float64(adds)/float64(secs), usf(cpu/time.Duration(max(adds, 1))), usf(nsCPU/time.Duration(max(adds, 1))), path)
		}
	}
}

// runFor runs adds on conc workers for d and returns how many were made.
func runFor(conc int, d time.Duration, newWorker func() func(int) error) int {
	var next atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for range conc {
		op := newWorker()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				_ = op(int(next.Add(1) - 1))
			}
		}()
	}
	wg.Wait()
	return int(next.Load())
}

// webhooksOf is webhooks for a benchmark.
func webhooksOf(b *testing.B, c *caddy) map[string]webhookStatus {
	r := c.do("GET", "/api/v1/events/webhooks", nil)
	var body struct{ Webhooks []webhookStatus }
	if err := json.Unmarshal(r.raw, &body); err != nil {
		b.Fatal(err)
	}
	out := map[string]webhookStatus{}
	for _, w := range body.Webhooks {
		out[w.Name] = w
	}
	return out
}

// benchProcess runs a helper process until the benchmark ends (stopped
// by its pid).
func benchProcess(b *testing.B, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// startHookReceiver starts the throughput rounds' webhook receiver on
// addr: testdata/hookreceiver (204 for every request, nothing checked:
// the least a receiver costs, since here it shares the service's two
// cores where a real one runs elsewhere), or, with
// ZONEAPI_BENCH_RECEIVER=caddy, `caddy respond --status 204` (Caddy's
// whole HTTP server: about 150 µs of CPU per event at concurrency 1 on
// this VM, against 20-30 µs).
func startHookReceiver(b *testing.B, addr string) *exec.Cmd {
	var cmd *exec.Cmd
	if os.Getenv("ZONEAPI_BENCH_RECEIVER") == "caddy" {
		cmd = benchProcess(b, caddyBin, "respond", "--listen", addr, "--status", "204")
	} else {
		bin := filepath.Join(b.TempDir(), "hookreceiver")
		if out, err := exec.Command("go", "build", "-o", bin, "./testdata/hookreceiver").CombinedOutput(); err != nil {
			b.Fatalf("building the receiver: %v\n%s", err, out)
		}
		cmd = benchProcess(b, bin, addr)
	}
	hookAddrReady(b, addr)
	return cmd
}

// hookAddrReady waits until the receiver accepts connections.
func hookAddrReady(b *testing.B, addr string) {
	for range 100 {
		if resp, err := http.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("the receiver at %s did not start", addr)
}

// procLoadAvg is the 1-minute load average, for the record of a run.
func procLoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "unknown"
	}
	for i, c := range b {
		if c == ' ' {
			return string(b[:i])
		}
	}
	return string(b)
}
