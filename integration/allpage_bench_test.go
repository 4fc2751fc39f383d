package integration

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkAllZonesPageScale is issue 27's all=true page alone, on
// demand: it creates zones through the API at concurrency 8 up to each
// checkpoint of ZONEAPI_ALLPAGE_ZONES (default "1000,20000") and there
// measures, sample by sample interleaved, GET
// /api/v1/zones?all=true&limit=100 at a random cursor (as BenchmarkScale
// asks it) and the list page of the API's zones beside it, p50 of
// ZONEAPI_SCALE_SAMPLES (default 200) each, first right after the
// creates (as BenchmarkScale measures) and then again 5 s later. With
// $ZONEAPI_BASELINE_CADDY a Caddy of that build runs beside on the same
// named and zone directory (it sees the creates through the index's log)
// and is measured in the same samples. With ZONEAPI_SCALE_PROFILE=<dir>
// it saves each Caddy's CPU profile while all=true pages are asked for
// 5 s at each checkpoint. It prints the p50s and the ratios of the last
// checkpoint to the first, and asserts nothing.
//
//	ZONEAPI_ALLPAGE_ZONES=1000,20000 go test ./integration -run '^$' -bench BenchmarkAllZonesPageScale -benchtime 1x -timeout 1h
func BenchmarkAllZonesPageScale(b *testing.B) {
	at := envInts(b, "ZONEAPI_ALLPAGE_ZONES", []int{1000, 20000})
	samples := envInt("ZONEAPI_SCALE_SAMPLES", 200)
	defer func(d time.Duration) { testbind.StartTimeout = d }(testbind.StartTimeout)
	testbind.StartTimeout = 10 * time.Minute
	ns := testbind.Start(b, nil)
	opts := caddyOpts{extra: "statistics_channel " + ns.StatsAddr}
	type side struct {
		name string
		c    *caddy
	}
	sides := []*side{{"this build", startCaddy(b, ns, opts)}}
	if bin := os.Getenv("ZONEAPI_BASELINE_CADDY"); bin != "" {
		o := opts
		o.bin = bin
		sides = append(sides, &side{"baseline", startCaddy(b, ns, o)})
	}
	api := func(i int) string { return fmt.Sprintf("s%06d.scale", i) }
	get := func(c *caddy, path string) {
		req, _ := http.NewRequest("GET", c.Base+path, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
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
	type p50s struct{ all, list, allLater, listLater time.Duration }
	res := map[string][]p50s{}
	created := 0
	for _, cp := range at {
		parallel(8, created, cp, func(i int) {
			if r := sides[0].c.do("POST", "/api/v1/zones", flatZoneBody(api(i))); r.status != http.StatusCreated {
				b.Errorf("create %s: %d %.200s", api(i), r.status, r.raw)
			}
		})
		if b.Failed() {
			b.FailNow()
		}
		created = cp
		measure := func() map[string][2]time.Duration {
			all := make([][]time.Duration, len(sides))
			list := make([][]time.Duration, len(sides))
			for range samples {
				cursor := api(rand.IntN(created))
				for k, s := range sides {
					t0 := time.Now()
					get(s.c, "/api/v1/zones?all=true&limit=100&cursor="+cursor+"@_default")
					all[k] = append(all[k], time.Since(t0))
					t0 = time.Now()
					get(s.c, "/api/v1/zones?limit=100&cursor="+cursor)
					list[k] = append(list[k], time.Since(t0))
				}
			}
			out := map[string][2]time.Duration{}
			for k, s := range sides {
				out[s.name] = [2]time.Duration{p50(all[k]), p50(list[k])}
			}
			return out
		}
		now := measure()
		time.Sleep(5 * time.Second)
		later := measure()
		for _, s := range sides {
			res[s.name] = append(res[s.name], p50s{now[s.name][0], now[s.name][1], later[s.name][0], later[s.name][1]})
		}
		if dir := os.Getenv("ZONEAPI_SCALE_PROFILE"); dir != "" {
			for k, s := range sides {
				done := make(chan struct{})
				go func() {
					defer close(done)
					resp, err := http.Get("http://" + s.c.AdminAddr + "/debug/pprof/profile?seconds=5")
					if err != nil {
						b.Error(err)
						return
					}
					defer resp.Body.Close()
					data, _ := io.ReadAll(resp.Body)
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("allpage-cpu-%d-%d.pprof", k, cp)), data, 0o644)
				}()
				for t := time.Now(); time.Since(t) < 5500*time.Millisecond; {
					get(s.c, "/api/v1/zones?all=true&limit=100&cursor="+api(rand.IntN(created))+"@_default")
				}
				<-done
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", d.Seconds()*1000) }
	fmt.Printf("\nBenchmarkAllZonesPageScale: p50 of %d samples each, interleaved\n\n| build | zones | all=true page, after the creates | list page | all=true page, 5 s later | list page |\n|---|---|---|---|---|---|\n", samples)
	for _, s := range sides {
		for i, cp := range at {
			r := res[s.name][i]
			fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", s.name, cp, ms(r.all), ms(r.list), ms(r.allLater), ms(r.listLater))
		}
	}
	fmt.Println()
	for _, s := range sides {
		r0, r1 := res[s.name][0], res[s.name][len(at)-1]
		fmt.Printf("%s: %d zones vs %d: all=true page %.2fx after the creates, %.2fx 5 s later; list page %.2fx, %.2fx\n", s.name, at[len(at)-1], at[0],
			r1.all.Seconds()/r0.all.Seconds(), r1.allLater.Seconds()/r0.allLater.Seconds(), r1.list.Seconds()/r0.list.Seconds(), r1.listLater.Seconds()/r0.listLater.Seconds())
	}
}
