package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/internal/testcaddy"
)

// BenchmarkEvents measures, in one run against one named, record adds at
// c=1 and c=8 through a Caddy with the change history, one webhook (a
// local receiver answering 204) and one event-stream client on, against a
// Caddy with the history off (so no events), in interleaved rounds on
// zones of their own; and the lag from a change's answer to its event on
// the stream (p50, p99). ZONEAPI_BENCH_N sets the adds per method and
// concurrency (default 2000).
func BenchmarkEvents(b *testing.B) {
	ns := startNamed(b)
	// The receiver and the stream client of the throughput rounds are
	// processes of their own (a `caddy respond` answering 204, a `curl
	// -N`), as they would be on other hosts: in this process they would
	// take the load generator's CPU.
	hookAddr := fmt.Sprintf("127.0.0.1:%d", testcaddy.FreePort(b))
	benchProcess(b, caddyBin, "respond", "--listen", hookAddr, "--status", "204")
	hookAddrReady(b, hookAddr)

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
	hist := startCaddy(b, startNamed(b), caddyOpts{extra: "log_filter warn"})
	const zoneOn, zoneOff, zoneHist = "on.events-bench.test", "off.events-bench.test", "hist.events-bench.test"
	expect(b, on.do("POST", "/api/v1/zones", zoneBody(zoneOn)), 201, "create")
	expect(b, off.do("POST", "/api/v1/zones", zoneBody(zoneOff)), 201, "create")
	expect(b, hist.do("POST", "/api/v1/zones", zoneBody(zoneHist)), 201, "create")
	benchProcess(b, "curl", "-sN", "-o", "/dev/null", "-H", "Authorization: Bearer "+testToken, on.Base+"/api/v1/events")
	n := 2000
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	runConcurrent("warm", 2, 50, leanAPIWorker(b, on, zoneOn, "w"))
	runConcurrent("warm", 2, 50, leanAPIWorker(b, off, zoneOff, "w"))
	runConcurrent("warm", 2, 50, leanAPIWorker(b, hist, zoneHist, "w"))

	var rows []runResult
	for _, conc := range []int{1, 8} {
		res := interleaved(10, conc, n,
			[]string{"history + 1 webhook + 1 stream on", "history off (no events)", "history on, no webhook or stream (another named)"},
			[]func(int) func() func(int) error{
				func(r int) func() func(int) error {
					return leanAPIWorker(b, on, zoneOn, fmt.Sprintf("e%d-%d-", conc, r))
				},
				func(r int) func() func(int) error {
					return leanAPIWorker(b, off, zoneOff, fmt.Sprintf("o%d-%d-", conc, r))
				},
				func(r int) func() func(int) error {
					return leanAPIWorker(b, hist, zoneHist, fmt.Sprintf("h%d-%d-", conc, r))
				},
			})
		rows = append(rows, res...)
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

	fmt.Printf("\nrecord adds, %d per method and concurrency, 10 interleaved rounds (load average %s):\n\n", n, procLoadAvg())
	fmt.Printf("| method | concurrency | records/s | p50 | p99 | errors | throughput vs off |\n|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		base := rows[i/3*3+1]
		fmt.Printf("| %s | %d | %.0f | %s | %s | %d | %.1f%% |\n", r.method, r.conc, r.perSec(), msf(r.p50), msf(r.p99), r.errors, 100*r.perSec()/base.perSec())
		if r.firstErrMsg != "" {
			fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
		}
	}
	for i := 0; i < len(rows); i += 3 {
		fmt.Printf("\nconcurrency %d: events on / history off %.1f%%; events on / history alone %.1f%%", rows[i].conc,
			100*rows[i].perSec()/rows[i+1].perSec(), 100*rows[i].perSec()/rows[i+2].perSec())
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
func benchProcess(b *testing.B, name string, args ...string) {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
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
