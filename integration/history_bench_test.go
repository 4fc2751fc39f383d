package integration

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"
)

// BenchmarkHistoryCost measures what recording the change history costs
// record adds: two caddies on one named, one with the history on (the
// default, with notify_listen so named's NOTIFYs reach it) and one with
// `history off`, each adding records to a zone of its own, at c=1 and
// c=8, in interleaved rounds (ZONEAPI_BENCH_ROUNDS, default 5; adds per
// round ZONEAPI_BENCH_N, default 600). It prints the median throughput of
// each and the ratio on/off (goal: at least 95%); it asserts nothing
// about time.
func BenchmarkHistoryCost(b *testing.B) {
	ns, port := historyNamed(b)
	on := startCaddy(b, ns, caddyOpts{extra: fmt.Sprintf("log_filter warn\n\t\t\thistory {\n\t\t\t\tnotify_listen 127.0.0.1:%d\n\t\t\t}", port)})
	off := startCaddy(b, ns, caddyOpts{extra: "log_filter warn\n\t\t\thistory off"})
	for _, x := range []struct {
		c    *caddy
		zone string
	}{{on, "hon.test"}, {off, "hoff.test"}} {
		if r := x.c.do("POST", "/api/v1/zones", zoneBody(x.zone)); r.status != http.StatusCreated {
			b.Fatalf("create %s: %d %s", x.zone, r.status, r.raw)
		}
	}
	n, rounds := 600, 5
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	if s := os.Getenv("ZONEAPI_BENCH_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	runConcurrent("warm", 2, 100, leanAPIWorker(b, on, "hon.test", "w"))
	runConcurrent("warm", 2, 100, leanAPIWorker(b, off, "hoff.test", "w"))
	type key struct {
		history string
		conc    int
	}
	rates := map[key][]float64{}
	p50s := map[key][]time.Duration{}
	for round := 0; round < rounds; round++ {
		for _, conc := range []int{1, 8} {
			// Alternate which goes first, so that neither always runs
			// on a warmer or busier machine.
			order := []string{"on", "off"}
			if round%2 == 1 {
				order = []string{"off", "on"}
			}
			for _, h := range order {
				c, zone := on, "hon.test"
				if h == "off" {
					c, zone = off, "hoff.test"
				}
				r := runConcurrent("add", conc, n, leanAPIWorker(b, c, zone, fmt.Sprintf("r%dc%d", round, conc)))
				if r.errors > 0 {
					b.Fatalf("history %s c=%d: %d errors, first: %s", h, conc, r.errors, r.firstErrMsg)
				}
				k := key{h, conc}
				rates[k] = append(rates[k], float64(n)/r.wall.Seconds())
				p50s[k] = append(p50s[k], r.p50)
			}
		}
	}
	med := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	medD := func(v []time.Duration) time.Duration {
		s := append([]time.Duration(nil), v...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	fmt.Printf("\n### History on vs off (%d rounds of %d adds, medians, same named, interleaved)\n\n", rounds, n)
	fmt.Println("| concurrency | history on, adds/s | history off, adds/s | on/off | p50 on | p50 off |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, conc := range []int{1, 8} {
		a, o := med(rates[key{"on", conc}]), med(rates[key{"off", conc}])
		fmt.Printf("| c=%d | %.0f | %.0f | %.1f%% | %.3f ms | %.3f ms |\n", conc, a, o, 100*a/o,
			float64(medD(p50s[key{"on", conc}]).Microseconds())/1000, float64(medD(p50s[key{"off", conc}]).Microseconds())/1000)
	}
	var ratios []string
	for _, conc := range []int{1, 8} {
		var rs []string
		for i := range rates[key{"on", conc}] {
			rs = append(rs, fmt.Sprintf("%.2f", rates[key{"on", conc}][i]/rates[key{"off", conc}][i]))
		}
		ratios = append(ratios, fmt.Sprintf("c=%d per round: %v", conc, rs))
	}
	fmt.Println()
	for _, r := range ratios {
		fmt.Println(r)
	}
	fmt.Printf("load average: %s\n", loadAverage())
}
