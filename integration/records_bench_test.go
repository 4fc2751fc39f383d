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
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// nsupdatePath is the nsupdate program of the baseline.
var nsupdatePath = envOr("ZONEAPI_NSUPDATE", "/usr/bin/nsupdate")

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// runResult is one method at one concurrency.
type runResult struct {
	method      string
	conc, n     int
	errors      int64
	wall        time.Duration
	p50, p99    time.Duration
	mean        time.Duration // set by interleaved
	firstErrMsg string
}

func (r runResult) perSec() float64 { return float64(r.n) / r.wall.Seconds() }

// interleaved runs methods in alternating rounds of n/rounds operations
// each, so that a zone growing during the run weighs on every method
// alike, and merges each method's rounds.
func interleaved(rounds, conc, n int, names []string, workers []func(round int) func() func(int) error) []runResult {
	return interleavedAround(rounds, conc, n, names, workers, nil)
}

// interleavedAround is interleaved calling around (if set) before each
// method's round, and the function it returns after it (to read the
// processes' CPU, say).
func interleavedAround(rounds, conc, n int, names []string, workers []func(round int) func() func(int) error, around func(m int) func()) []runResult {
	out := make([]runResult, len(names))
	lats := make([][]time.Duration, len(names))
	for r := 0; r < rounds; r++ {
		for m := range names {
			var after func()
			if around != nil {
				after = around(m)
			}
			res, lat := runConcurrentLat(names[m], conc, n/rounds, workers[m](r))
			if after != nil {
				after()
			}
			out[m].method, out[m].conc = names[m], conc
			out[m].n += res.n
			out[m].errors += res.errors
			out[m].wall += res.wall
			if out[m].firstErrMsg == "" {
				out[m].firstErrMsg = res.firstErrMsg
			}
			lats[m] = append(lats[m], lat...)
		}
	}
	for m := range out {
		l := lats[m]
		sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
		out[m].p50, out[m].p99 = l[len(l)/2], l[len(l)*99/100]
		var sum time.Duration
		for _, d := range l {
			sum += d
		}
		out[m].mean = sum / time.Duration(len(l))
	}
	return out
}

func runConcurrent(method string, conc, n int, newWorker func() func(i int) error) runResult {
	r, _ := runConcurrentLat(method, conc, n, newWorker)
	return r
}

// runConcurrentLat runs n operations on conc workers; op gets the worker and
// the operation index.
func runConcurrentLat(method string, conc, n int, newWorker func() func(i int) error) (runResult, []time.Duration) {
	lat := make([]time.Duration, n)
	var next, errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		op := newWorker()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(i); err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	r := runResult{method: method, conc: conc, n: n, errors: errs.Load(), wall: wall, p50: lat[n/2], p99: lat[n*99/100]}
	if v := firstErr.Load(); v != nil {
		r.firstErrMsg = v.(string)
	}
	return r, lat
}

// apiWorker adds records through the API over one keep-alive connection.
func apiWorker(c *caddy, zone, prefix string) func() func(int) error {
	return func() func(int) error {
		cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		return func(i int) error {
			body, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("%s%06d", prefix, i), "type": "A", "value": "192.0.2.1", "ttl": 60})
			req, _ := http.NewRequest("POST", c.Base+"/api/v1/zones/"+zone+"/records", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := cl.Do(req)
			if err != nil {
				return err
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				return fmt.Errorf("status %d: %s", resp.StatusCode, raw)
			}
			return nil
		}
	}
}

// leanAPIWorker adds records through the API over one keep-alive
// HTTP/1.1 connection written and read directly (as wrk or hey would):
// the client's own weight matches the raw RFC 2136 worker's, so the
// comparison measures the server path. Go's net/http client adds about
// 0.13 ms per request here (its connection goroutines and channel
// handoffs); apiWorker measures that too.
func leanAPIWorker(t testing.TB, c *caddy, zone, prefix string) func() func(int) error {
	return leanAPIWorkerAs(t, c, zone, prefix, testToken)
}

// leanAPIWorkerAs is leanAPIWorker sending the given bearer token.
func leanAPIWorkerAs(t testing.TB, c *caddy, zone, prefix, token string) func() func(int) error {
	return leanWorkerAt(t, strings.TrimPrefix(c.Base, "http://"), zone, prefix, token)
}

// leanWorkerAt is leanAPIWorkerAs sending to any HTTP server at addr (a
// floor of the API, say), which must answer 201.
func leanWorkerAt(t testing.TB, addr, zone, prefix, token string) func() func(int) error {
	return func() func(int) error {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		br := bufio.NewReader(conn)
		var buf bytes.Buffer
		return func(i int) error {
			body := fmt.Sprintf(`{"name":"%s%06d","type":"A","value":"192.0.2.1","ttl":60}`, prefix, i)
			buf.Reset()
			fmt.Fprintf(&buf, "POST /api/v1/zones/%s/records HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
				zone, addr, token, len(body), body)
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
			if resp.StatusCode != http.StatusCreated {
				return fmt.Errorf("status %d: %s", resp.StatusCode, raw)
			}
			return nil
		}
	}
}

// rawWorker sends TSIG-signed RFC 2136 updates over one TCP connection:
// the floor for any client of named.
func rawWorker(t testing.TB, ns *testbind.Server, zone, prefix string) func() func(int) error {
	return func() func(int) error {
		conn, err := net.Dial("tcp", ns.DNSAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		secrets := map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}
		return func(i int) error {
			m := new(dns.Msg)
			m.SetUpdate(zone + ".")
			rr, _ := dns.NewRR(fmt.Sprintf("%s%06d.%s. 60 IN A 192.0.2.1", prefix, i, zone))
			m.Insert([]dns.RR{rr})
			m.SetTsig(ns.TSIGKeyName+".", dns.HmacSHA256, 300, time.Now().Unix())
			co := &dns.Conn{Conn: conn, TsigSecret: secrets}
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			if err := co.WriteMsg(m); err != nil {
				return err
			}
			r, err := co.ReadMsg()
			if err != nil {
				return err
			}
			if r.Rcode != dns.RcodeSuccess {
				return fmt.Errorf("rcode %s", dns.RcodeToString[r.Rcode])
			}
			return nil
		}
	}
}

// nsupdateWorker runs one nsupdate process per change, as bindcar does.
func nsupdateWorker(ns *testbind.Server, zone, prefix string) func() func(int) error {
	host, port, _ := net.SplitHostPort(ns.DNSAddr)
	return func() func(int) error {
		return func(i int) error {
			script := fmt.Sprintf("server %s %s\nzone %s\nupdate add %s%06d.%s. 60 IN A 192.0.2.1\nsend\n", host, port, zone, prefix, i, zone)
			cmd := exec.Command(nsupdatePath, "-v", "-k", ns.TSIGKeyFile)
			cmd.Stdin = strings.NewReader(script)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		}
	}
}

// BenchmarkRecords compares, in one run against one named, adding records
// through the API (HTTP/1.1 keep-alive to Caddy), through raw RFC 2136
// from Go, and through one nsupdate process per change, at concurrency 1
// and 8; then a 1,000-change batch against a single change. It prints a
// markdown table and asserts nothing about time.
func BenchmarkRecords(b *testing.B) {
	ns := startNamed(b)
	c := startCaddy(b, ns, caddyOpts{extra: "log_filter warn"})
	const zone = "bench.test"
	if r := c.do("POST", "/api/v1/zones", zoneBody(zone)); r.status != http.StatusCreated {
		b.Fatalf("create: %d %s", r.status, r.raw)
	}
	n := 2000
	nNsupdate := 150
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	// Warm up every path (connections, caches, nsupdate's page cache).
	runConcurrent("warm", 2, 50, apiWorker(c, zone, "wa"))
	runConcurrent("warm", 2, 50, leanAPIWorker(b, c, zone, "wl"))
	runConcurrent("warm", 2, 50, rawWorker(b, ns, zone, "wr"))
	runConcurrent("warm", 1, 3, nsupdateWorker(ns, zone, "wn"))

	var rows []runResult
	for _, conc := range []int{1, 8} {
		conc := conc
		res := interleaved(10, conc, n,
			[]string{"API (HTTP/1.1 keep-alive -> zone_api -> RFC 2136)", "raw RFC 2136 (Go, TSIG, persistent TCP)", "API through Go's net/http client"},
			[]func(int) func() func(int) error{
				func(r int) func() func(int) error { return leanAPIWorker(b, c, zone, fmt.Sprintf("a%d-%d-", conc, r)) },
				func(r int) func() func(int) error { return rawWorker(b, ns, zone, fmt.Sprintf("r%d-%d-", conc, r)) },
				func(r int) func() func(int) error { return apiWorker(c, zone, fmt.Sprintf("g%d-%d-", conc, r)) },
			})
		nsu := runConcurrent("nsupdate process per change", conc, nNsupdate, nsupdateWorker(ns, zone, fmt.Sprintf("n%d-", conc)))
		rows = append(rows, res[0], res[1], nsu, res[2])
	}

	// Batch: 1,000 adds in one PATCH vs one POST, on a fresh zone.
	const bzone = "batch.test"
	if r := c.do("POST", "/api/v1/zones", zoneBody(bzone)); r.status != http.StatusCreated {
		b.Fatalf("create: %d %s", r.status, r.raw)
	}
	var batchTimes, singleTimes []time.Duration
	for k := 0; k < 5; k++ {
		changes := make([]map[string]any, 1000)
		for i := range changes {
			changes[i] = map[string]any{"op": "add", "name": fmt.Sprintf("k%d-%04d", k, i), "type": "A", "value": "192.0.2.2"}
		}
		t0 := time.Now()
		r := c.do("PATCH", "/api/v1/zones/"+bzone+"/records", map[string]any{"changes": changes})
		batchTimes = append(batchTimes, time.Since(t0))
		if r.status != 200 {
			b.Fatalf("batch: %d %s", r.status, r.raw)
		}
		t0 = time.Now()
		r = c.do("POST", "/api/v1/zones/"+bzone+"/records", map[string]any{"name": fmt.Sprintf("s%d", k), "type": "A", "value": "192.0.2.3"})
		singleTimes = append(singleTimes, time.Since(t0))
		if r.status != 201 {
			b.Fatalf("single: %d %s", r.status, r.raw)
		}
	}
	sort.Slice(batchTimes, func(i, j int) bool { return batchTimes[i] < batchTimes[j] })
	sort.Slice(singleTimes, func(i, j int) bool { return singleTimes[i] < singleTimes[j] })
	batch, single := batchTimes[2], singleTimes[2]

	// The same through raw RFC 2136: what named itself costs for one
	// 1,000-change UPDATE and for a single change.
	rawSend := rawWorker(b, ns, bzone, "")()
	rawBatch := func(k int) error {
		m := new(dns.Msg)
		m.SetUpdate(bzone + ".")
		rrs := make([]dns.RR, 1000)
		for i := range rrs {
			rrs[i], _ = dns.NewRR(fmt.Sprintf("q%d-%04d.%s. 60 IN A 192.0.2.4", k, i, bzone))
		}
		m.Insert(rrs)
		return sendSigned(ns, m)
	}
	var rawBatchTimes, rawSingleTimes []time.Duration
	for k := 0; k < 5; k++ {
		t0 := time.Now()
		if err := rawBatch(k); err != nil {
			b.Fatalf("raw batch: %v", err)
		}
		rawBatchTimes = append(rawBatchTimes, time.Since(t0))
		t0 = time.Now()
		if err := rawSend(900000 + k); err != nil {
			b.Fatalf("raw single: %v", err)
		}
		rawSingleTimes = append(rawSingleTimes, time.Since(t0))
	}
	sort.Slice(rawBatchTimes, func(i, j int) bool { return rawBatchTimes[i] < rawBatchTimes[j] })
	sort.Slice(rawSingleTimes, func(i, j int) bool { return rawSingleTimes[i] < rawSingleTimes[j] })
	rawB, rawS := rawBatchTimes[2], rawSingleTimes[2]

	fmt.Printf("\nrecord adds against one named (%d API and raw adds, %d nsupdate runs, per concurrency):\n\n", n, nNsupdate)
	fmt.Printf("| method | concurrency | records/s | p50 | p99 | errors | throughput vs raw |\n|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		raw := rows[i/4*4+1]
		fmt.Printf("| %s | %d | %.0f | %s | %s | %d | %.0f%% |\n", r.method, r.conc, r.perSec(), msf(r.p50), msf(r.p99), r.errors, 100*r.perSec()/raw.perSec())
		if r.firstErrMsg != "" {
			fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
		}
	}
	for i := 0; i < len(rows); i += 4 {
		api, nsu := rows[i], rows[i+2]
		fmt.Printf("\nconcurrency %d: API %.1fx the nsupdate method\n", api.conc, api.perSec()/nsu.perSec())
		b.ReportMetric(100*api.perSec()/rows[i+1].perSec(), fmt.Sprintf("api-vs-raw-%%-c%d", api.conc))
	}
	fmt.Printf("\n1,000-change batch (PATCH, median of 5): %s; single change (POST): %s; batch/single = %.1fx\n", msf(batch), msf(single), ratio(batch, single))
	fmt.Printf("raw RFC 2136, same named: 1,000-change UPDATE %s; single UPDATE %s; batch/single = %.1fx; API batch / raw batch = %.2fx\n",
		msf(rawB), msf(rawS), ratio(rawB, rawS), ratio(batch, rawB))
	b.ReportMetric(ratio(batch, single), "batch/single-x")
}

func msf(d time.Duration) string { return fmt.Sprintf("%.2f ms", d.Seconds()*1000) }

// sendSigned sends m to named over TCP signed with its TSIG key and
// fails unless named answers NOERROR.
func sendSigned(ns *testbind.Server, m *dns.Msg) error {
	conn, err := net.Dial("tcp", ns.DNSAddr)
	if err != nil {
		return err
	}
	defer conn.Close()
	m.SetTsig(ns.TSIGKeyName+".", dns.HmacSHA256, 300, time.Now().Unix())
	co := &dns.Conn{Conn: conn, TsigSecret: map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if err := co.WriteMsg(m); err != nil {
		return err
	}
	r, err := co.ReadMsg()
	if err == nil && r.Rcode != dns.RcodeSuccess {
		err = fmt.Errorf("rcode %s", dns.RcodeToString[r.Rcode])
	}
	return err
}
