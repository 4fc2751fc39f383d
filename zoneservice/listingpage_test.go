package zoneservice

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// pageRig is a service of n zones, every one in named's statistics and
// in the index (a zone store whose log is written whole before it is
// opened, as n creates would leave it), as BenchmarkScale's zones are.
func pageRig(tb testing.TB, n int) (*Service, []string) {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".zoneapi"), 0o755); err != nil {
		tb.Fatal(err)
	}
	names := make([]string, n)
	zones := make([]string, n)
	var log bytes.Buffer
	created := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for i := range n {
		names[i] = fmt.Sprintf("s%06d.scale", i)
		zones[i] = names[i] + " _default primary"
		line, _ := json.Marshal(map[string]any{"op": "put", "name": names[i], "type": "primary", "created": created, "fp": fmt.Sprintf("%032x", i+1)})
		log.Write(line)
		log.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, ".zoneapi", "index.log"), log.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	st, err := zonestore.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, ok, _ := st.Get(names[n-1]); !ok {
		tb.Fatalf("the index lacks %s", names[n-1])
	}
	body := statsOf(zones...)
	s := &Service{Store: st}
	s.Inventory = &inventory.Inventory{
		Fetch:   func(context.Context) ([]byte, error) { return body, nil },
		Indexed: func(name, _ string) bool { _, ok, _ := st.Get(name); return ok },
		Refresh: time.Hour,
	}
	tb.Cleanup(s.Inventory.Stop)
	if _, _, total, err := s.AllZones(context.Background(), ListFilter{}, "", 100); err != nil || total != n {
		tb.Fatalf("first page: total %d, %v", total, err)
	}
	return s, names
}

// BenchmarkAllZonesPage: a page of the list of every zone (AllZones,
// what GET /api/v1/zones?all=true&limit=100 asks of the zone service)
// at a random cursor, as BenchmarkScale asks it, at 1,000 and at 100,000
// zones in the same run: p50 of each and their ratio (issue 27's goal
// for the whole request: at most 1.5x).
//
//	go test ./zoneservice -run '^$' -bench BenchmarkAllZonesPage -benchtime 1x
func BenchmarkAllZonesPage(b *testing.B) {
	const samples = 2000
	sizes := []int{1000, 100_000}
	ctx := context.Background()
	for range b.N {
		p50 := map[int]time.Duration{}
		for _, n := range sizes {
			s, names := pageRig(b, n)
			r := rand.New(rand.NewPCG(1, uint64(n)))
			d := make([]time.Duration, samples)
			for i := range d {
				cursor := names[r.IntN(n)] + "@" + inventory.DefaultView
				t0 := time.Now()
				page, _, _, err := s.AllZones(ctx, ListFilter{}, cursor, 100)
				d[i] = time.Since(t0)
				if err != nil || len(page) == 0 && cursor != names[n-1]+"@"+inventory.DefaultView {
					b.Fatalf("page at %s: %d zones, %v", cursor, len(page), err)
				}
			}
			slices.Sort(d)
			p50[n] = d[samples/2]
			b.ReportMetric(float64(p50[n].Nanoseconds())/1e3, fmt.Sprintf("µs-p50-%d", n))
		}
		b.ReportMetric(float64(p50[sizes[1]])/float64(p50[sizes[0]]), "x-ratio")
	}
}
