package powerdns

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend/adapter"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// listedZones is the adapter over a zone service whose zone list is
// given (the benchmark's service has no zone index).
type listedZones struct {
	adapter.Zones
	zones []ZoneInfo
}

func (l listedZones) ListZones(context.Context) ([]ZoneInfo, error) { return l.zones, nil }

// ZonesPage pages through the zones given (in name order), as the
// adapter's over a zone index: the search walks it (the adapter's own
// would ask the benchmark's service for its index, which it has none of).
func (l listedZones) ZonesPage(_ context.Context, cursor string, limit int) ([]ZoneInfo, string, error) {
	i := 0
	if cursor != "" {
		i = sort.Search(len(l.zones), func(j int) bool { return l.zones[j].Name > cursor })
	}
	j, next := min(i+limit, len(l.zones)), ""
	if j < len(l.zones) {
		next = l.zones[j-1].Name
	}
	return l.zones[i:j], next, nil
}

// searchBefore is searchData's zone and record search as it was before
// searchRecords (a copy): every zone read with Records (Snapshot: an SOA
// query, a transfer kept in the cache, the RRsets built), one at a time.
func searchBefore(a *API, ctx context.Context, zones []ZoneInfo, match func(string) bool, max int) []SearchResult {
	out := []SearchResult{}
	for _, z := range zones {
		if len(out) < max && match(FQDN(z.Name)) {
			out = append(out, SearchResult{ObjectType: "zone", Name: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
		}
	}
	for _, z := range zones {
		if len(out) >= max {
			break
		}
		_, sets, err := a.Service.Records(ctx, z.Name)
		if err != nil {
			continue
		}
		for _, s := range sets {
			for _, v := range s.Values {
				if len(out) < max && (match(s.Name) || match(v)) {
					ttl, disabled := s.TTL, false
					out = append(out, SearchResult{ObjectType: "record", Name: s.Name, Type: s.Type, TTL: &ttl,
						Disabled: &disabled, Content: v, Zone: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
				}
			}
		}
	}
	return out
}

// BenchmarkSearchAtScale: the PowerDNS search (GET /search-data) over N
// hosting zones of a real named (ZONEAPI_SEARCH_ZONES, default 3,000; 9
// records each), for a zone's name with max=10 as BenchmarkScale asks it
// (the zone and its apex records match: fewer than 10 results, so every
// zone is read), the search as it was (searchBefore: one zone at a time
// through the cached Snapshot) against searchData now, interleaved over
// ZONEAPI_SEARCH_ROUNDS rounds (default 3), each search on an Updater of
// its own (an empty cache, as at 100,000 zones, where the cache holds
// some 16,000 zones and a search's reads all miss it), then once more on
// the same Updater (second search). It prints, per method, the p50 time,
// the bytes allocated by a search and the heap still held after it (a
// collection later), and now/before; both answers must be the same bytes.
// Run with go test ./powerdns -run '^$' -bench BenchmarkSearchAtScale -benchtime 1x.
func BenchmarkSearchAtScale(b *testing.B) {
	n := envInt("ZONEAPI_SEARCH_ZONES", 3000)
	rounds := envInt("ZONEAPI_SEARCH_ROUNDS", 3)
	dir := b.TempDir()
	var conf strings.Builder
	var zones []ZoneInfo
	for i := range n {
		z := fmt.Sprintf("zone-%05d.example", i)
		text := fmt.Sprintf(`$TTL 300
@ 3600 IN SOA ns1.provider.example. hostmaster.provider.example. 1 3600 600 86400 300
@ 3600 IN NS ns1.provider.example.
@ 3600 IN NS ns2.provider.example.
@ IN A 192.0.2.10
@ IN AAAA 2001:db8::10
@ IN MX 10 mail
@ IN TXT "v=spf1 mx -all"
www IN CNAME @
mail IN A 192.0.2.11
`)
		path := filepath.Join(dir, z+".db")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&conf, "zone %q { type primary; file %q; allow-update { key %q; }; allow-transfer { key %q; }; };\n", z, path, testbind.TSIGKeyName, testbind.TSIGKeyName)
		zones = append(zones, ZoneInfo{Name: z, Type: "primary"})
	}
	ns := testbind.Start(b, &testbind.Options{ExtraConfig: conf.String()})
	newAPI := func() (*API, *dnsupdate.Updater) {
		c, err := dnsupdate.NewClient(ns.DNSAddr, &dnsupdate.TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		u := dnsupdate.NewUpdater(c)
		root := zoneservice.NewServer(zoneservice.ServerConfig{Root: zoneservice.ViewParts{Updater: u}}).Root()
		return &API{Service: listedZones{Zones: adapter.Zones{Service: func(context.Context) (*zoneservice.Service, error) { return root, nil }}, zones: zones}}, u
	}
	q := zones[n/2].Name
	target := Prefix + "/search-data?q=" + q + "&max=10"
	run := map[string]func(a *API) []byte{
		"before": func(a *API) []byte {
			pattern := strings.ToLower(q)
			match := func(s string) bool {
				s = strings.ToLower(s)
				return ok2(pattern, s) || ok2(pattern, strings.TrimSuffix(s, "."))
			}
			rec := httptest.NewRecorder()
			writeJSON(rec, http.StatusOK, searchBefore(a, context.Background(), zones, match, 10))
			return rec.Body.Bytes()
		},
		"now": func(a *API) []byte {
			rec := httptest.NewRecorder()
			a.searchData(rec, httptest.NewRequest("GET", target, nil), "")
			return rec.Body.Bytes()
		},
	}
	type figures struct{ cold, warm, alloc, held []float64 }
	got := map[string]*figures{"before": {}, "now": {}}
	answers := map[string]string{}
	for range b.N {
		for r := range rounds {
			order := []string{"before", "now"}
			if r%2 == 1 {
				order = []string{"now", "before"}
			}
			for _, m := range order {
				a, u := newAPI()
				base := heapLive()
				var ms0, ms1 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				t0 := time.Now()
				body := run[m](a)
				cold := time.Since(t0)
				runtime.ReadMemStats(&ms1)
				held := heapLive() - base
				t1 := time.Now()
				again := run[m](a)
				warm := time.Since(t1)
				u.Close()
				if answers[m] == "" {
					answers[m] = string(body)
				}
				if string(body) != answers[m] || string(again) != answers[m] {
					b.Fatalf("%s: the answers differ between searches: %s / %s", m, body, again)
				}
				f := got[m]
				f.cold = append(f.cold, float64(cold.Microseconds())/1000)
				f.warm = append(f.warm, float64(warm.Microseconds())/1000)
				f.alloc = append(f.alloc, float64(ms1.TotalAlloc-ms0.TotalAlloc)/(1<<20))
				f.held = append(f.held, held/(1<<20))
			}
		}
	}
	if answers["before"] != answers["now"] {
		b.Fatalf("the answers differ:\nbefore %s\nnow    %s", answers["before"], answers["now"])
	}
	p50 := func(xs []float64) float64 { s := slices.Clone(xs); slices.Sort(s); return s[len(s)/2] }
	bf, nw := got["before"], got["now"]
	b.Logf("search of %q, max=10 (%d bytes answered) over %d zones, p50 of %d rounds, before -> now (now/before):", q, len(answers["now"]), n, rounds)
	b.Logf("  first search, empty cache: %.0f ms -> %.0f ms (%.2fx)", p50(bf.cold), p50(nw.cold), p50(nw.cold)/p50(bf.cold))
	b.Logf("  allocated by it: %.1f MB -> %.1f MB (%.2fx)", p50(bf.alloc), p50(nw.alloc), p50(nw.alloc)/p50(bf.alloc))
	b.Logf("  heap held after it: %.1f MB -> %.1f MB", p50(bf.held), p50(nw.held))
	b.Logf("  second search, same Updater: %.0f ms -> %.0f ms (%.2fx)", p50(bf.warm), p50(nw.warm), p50(nw.warm)/p50(bf.warm))
	b.ReportMetric(p50(nw.cold)/p50(bf.cold), "ratio-time")
	b.ReportMetric(p50(nw.alloc)/p50(bf.alloc), "ratio-alloc")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// heapLive is the heap in use after a collection, in bytes.
func heapLive() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}
