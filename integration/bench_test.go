package integration

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// BenchmarkZoneCreate compares, in one run against one named, creating a
// zone through the API (HTTP, validation, rendering, atomic write, native
// rndc addzone, index) with the same creates done the way a script would:
// write the zone file and run the rndc program. It prints both and the
// ratio; it asserts nothing about time.
func BenchmarkZoneCreate(b *testing.B) {
	ns := startNamed(b)
	c := startCaddy(b, ns, caddyOpts{})
	const n = 100
	api := timeEach(n, func(i int) {
		r := c.do("POST", "/api/v1/zones", zoneBody(fmt.Sprintf("api%04d.bench", i)))
		if r.status != http.StatusCreated {
			b.Fatalf("create: %d %s", r.status, r.raw)
		}
	})
	prog := timeEach(n, func(i int) {
		createWithRNDCProgram(b, ns.ZoneDir, ns.RNDC, fmt.Sprintf("prog%04d.bench", i))
	})
	b.ReportMetric(api.p50.Seconds()*1000, "api-p50-ms")
	b.ReportMetric(prog.p50.Seconds()*1000, "rndc-program-p50-ms")
	b.ReportMetric(prog.mean.Seconds()/api.mean.Seconds(), "speedup-x")
	fmt.Printf("\nzone create, %d each, same named:\n", n)
	fmt.Printf("| method | mean | p50 | p99 | ratio to API |\n|---|---|---|---|---|\n")
	fmt.Printf("| API (HTTP -> zone_api -> native rndc) | %s | %s | %s | 1.0x |\n", ms(api.mean), ms(api.p50), ms(api.p99))
	fmt.Printf("| file write + rndc program | %s | %s | %s | %.1fx slower |\n", ms(prog.mean), ms(prog.p50), ms(prog.p99), prog.mean.Seconds()/api.mean.Seconds())
}

// BenchmarkZoneScale measures create, get and one list page through the
// API at 100, 1,000 and 10,000 zones, and prints each against the
// 100-zone row of the same run.
func BenchmarkZoneScale(b *testing.B) {
	sizes := []int{100, 1000, 10000}
	if s := os.Getenv("ZONEAPI_SCALE_MAX"); s != "" {
		var max int
		fmt.Sscan(s, &max)
		var keep []int
		for _, n := range sizes {
			if n <= max {
				keep = append(keep, n)
			}
		}
		sizes = keep
	}
	ns := startNamed(b)
	c := startCaddy(b, ns, caddyOpts{})
	type row struct {
		zones             int
		create, get, list stats
	}
	var rows []row
	have := 0
	fill := func(upTo int) {
		for ; have < upTo; have++ {
			r := c.do("POST", "/api/v1/zones", zoneBody(fmt.Sprintf("z%05d.scale", have)))
			if r.status != http.StatusCreated {
				b.Fatalf("fill: %d %s", r.status, r.raw)
			}
		}
	}
	for _, size := range sizes {
		fill(size - 50)
		create := timeEach(50, func(i int) {
			r := c.do("POST", "/api/v1/zones", zoneBody(fmt.Sprintf("z%05d.scale", have)))
			have++
			if r.status != http.StatusCreated {
				b.Fatalf("create: %d %s", r.status, r.raw)
			}
		})
		get := timeEach(200, func(i int) {
			r := c.do("GET", fmt.Sprintf("/api/v1/zones/z%05d.scale", rand.IntN(have)), nil)
			if r.status != 200 {
				b.Fatalf("get: %d %s", r.status, r.raw)
			}
		})
		list := timeEach(200, func(i int) {
			r := c.do("GET", fmt.Sprintf("/api/v1/zones?limit=100&cursor=z%05d.scale", rand.IntN(have)), nil)
			if r.status != 200 {
				b.Fatalf("list: %d %s", r.status, r.raw)
			}
		})
		rows = append(rows, row{size, create, get, list})
	}
	fmt.Printf("\nper-operation cost by number of zones (p50; ratio to the first row):\n")
	fmt.Printf("| zones | create | get | list page (100) |\n|---|---|---|---|\n")
	for _, r := range rows {
		base := rows[0]
		fmt.Printf("| %d | %s (%.2fx) | %s (%.2fx) | %s (%.2fx) |\n", r.zones,
			ms(r.create.p50), ratio(r.create.p50, base.create.p50),
			ms(r.get.p50), ratio(r.get.p50, base.get.p50),
			ms(r.list.p50), ratio(r.list.p50, base.list.p50))
	}
	last := rows[len(rows)-1]
	b.ReportMetric(ratio(last.create.p50, rows[0].create.p50), "create-growth-x")
	b.ReportMetric(ratio(last.list.p50, rows[0].list.p50), "list-growth-x")
}

// createWithRNDCProgram is the baseline: render the same zone, write it,
// run `rndc addzone`.
func createWithRNDCProgram(b testing.TB, dir string, rndcProg func(...string) (string, error), name string) {
	var req zonemodel.CreateZoneRequest
	req.ZoneName = name
	req.ZoneType = "primary"
	req.ZoneConfig = &zonemodel.ZoneConfig{
		TTL:           3600,
		SOA:           &zonemodel.SOA{PrimaryNS: "ns1." + name + ".", AdminEmail: "hostmaster." + name + "."},
		NameServers:   []string{"ns1." + name + ".", "ns2." + name + "."},
		NameServerIPs: map[string]string{"ns1." + name + ".": "192.0.2.53", "ns2." + name + ".": "2001:db8::53"},
	}
	z, err := req.Normalize(time.Now())
	if err != nil {
		b.Fatal(err)
	}
	data, err := z.RenderFile()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, name+".zone")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := rndcProg("addzone", name, zoneservice.AddZoneStatement(z, path, "", "").Block()); err != nil {
		b.Fatalf("rndc addzone: %v %s", err, out)
	}
}

// stats summarises durations.
type stats struct{ mean, p50, p99 time.Duration }

// timeEach runs f n times and returns the mean, median and 99th percentile.
func timeEach(n int, f func(i int)) stats {
	d := make([]time.Duration, n)
	var total time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		f(i)
		d[i] = time.Since(t0)
		total += d[i]
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return stats{mean: total / time.Duration(n), p50: d[n/2], p99: d[(n*99)/100]}
}

func ms(d time.Duration) string {
	return strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()*1000), "0") + " ms"
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
