package integration

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// BenchmarkRecordsAuth compares record adds through the API with the
// static mode (21 tokens, a scoped one presented) against basic mode, in
// one run against one named: two Caddy processes, rounds interleaved so
// the growing zones weigh on both alike. It prints a table with the
// static/basic throughput ratio and asserts nothing about time.
func BenchmarkRecordsAuth(b *testing.B) {
	ns := startNamed(b)
	basic := startCaddy(b, ns, caddyOpts{extra: "log_filter warn"})
	tok, hash := tokens(b, "bench")
	var lines strings.Builder
	for i := 0; i < 20; i++ {
		_, h := tokens(b, "x")
		fmt.Fprintf(&lines, "\t\t\t\ttoken other%d %s\n", i, h["x"])
	}
	static := startCaddy(b, ns, caddyOpts{extra: "log_filter warn\n\t\t\tauth static {\n" + lines.String() +
		"\t\t\t\ttoken bench " + hash["bench"] + " {\n\t\t\t\t\tactions records\n\t\t\t\t\tzones auth-static.test\n\t\t\t\t}\n\t\t\t}"})
	for _, zone := range []string{"auth-basic.test", "auth-static.test"} {
		body := zoneBody(zone)
		// The scoped token may not create zones; basic mode's caddy does
		// (both share named and the zone directory).
		r := basic.do("POST", "/api/v1/zones", body)
		if r.status != http.StatusCreated {
			b.Fatalf("create %s: %d %s", zone, r.status, r.raw)
		}
	}
	n := 2000
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	runConcurrent("warm", 2, 50, leanAPIWorkerAs(b, basic, "auth-basic.test", "wb", testToken))
	runConcurrent("warm", 2, 50, leanAPIWorkerAs(b, static, "auth-static.test", "ws", tok["bench"]))
	fmt.Printf("\nrecord adds, static auth vs basic (%d adds per method and concurrency, 10 interleaved rounds):\n\n", n)
	fmt.Printf("| auth | concurrency | records/s | p50 | p99 | errors | vs basic |\n|---|---|---|---|---|---|---|\n")
	for _, conc := range []int{1, 8} {
		conc := conc
		res := interleaved(10, conc, n, []string{"basic", "static"}, []func(int) func() func(int) error{
			func(r int) func() func(int) error {
				return leanAPIWorkerAs(b, basic, "auth-basic.test", fmt.Sprintf("b%d-%d-", conc, r), testToken)
			},
			func(r int) func() func(int) error {
				return leanAPIWorkerAs(b, static, "auth-static.test", fmt.Sprintf("s%d-%d-", conc, r), tok["bench"])
			},
		})
		for _, r := range res {
			fmt.Printf("| %s | %d | %.0f | %s | %s | %d | %.1f%% |\n", r.method, conc, r.perSec(), msf(r.p50), msf(r.p99), r.errors, 100*r.perSec()/res[0].perSec())
			if r.firstErrMsg != "" {
				fmt.Printf("|   first error: %s |\n", r.firstErrMsg)
			}
		}
		b.ReportMetric(100*res[1].perSec()/res[0].perSec(), fmt.Sprintf("static-vs-basic-%%-c%d", conc))
	}
}
