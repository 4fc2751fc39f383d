package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/powerdns"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// probedSearch is the adapter whose zones' records are given (www A in
// each zone), and which measures, at every hundredth zone a search
// reads, the heap live (after a collection) above base.
type probedSearch struct {
	Zones
	reads *atomic.Int64
	base  uint64
	live  *atomic.Int64
}

func (p probedSearch) SearchRecords(_ context.Context, zone string, match func(owner, value string) bool) ([]zonemodel.RRset, error) {
	if p.reads.Add(1)%100 == 0 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if l := int64(ms.HeapAlloc) - int64(p.base); l > p.live.Load() {
			p.live.Store(l)
		}
	}
	owner := "www." + zone + "."
	if !match(owner, "192.0.2.1") {
		return nil, nil
	}
	return []zonemodel.RRset{{Name: owner, Type: "A", TTL: 300, Values: []string{"192.0.2.1"}}}, nil
}

// TestPowerDNSSearchPaged: the PowerDNS search over the zone service
// (issue 27: the list of 100,000 zones, some 18 MB, held while a search
// of every zone's records runs) walks the zone list a page at a time: the
// heap live while it reads the zones' records is under half the list's
// held whole, and its answer (zones, records, then a side file's
// disabled records and comments) is the bytes of the search over the
// list read whole, and named's statistics channel is asked once, as by
// the list read whole (the walks after the first reuse its first page). Before the paged walk the search held the list (and
// the names of its zones) until it answered: over 1x the list.
func TestPowerDNSSearchPaged(t *testing.T) {
	const n = 16000
	st, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		name := fmt.Sprintf("z%05d.test", i)
		if err := st.Put(zonestore.Entry{Name: name, Type: "primary", Created: created}); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 177 { // a side file with a disabled record and a comment
			side := fmt.Sprintf(`{"created":%q,"rrsets":{"mail.%s. A":{"name":"mail.%s.","type":"A","ttl":60,`+
				`"comments":[{"content":"seen at 77.test","account":"a","modified_at":1}],"disabled":["192.0.2.7"]}}}`,
				created.Format(time.RFC3339Nano), name, name)
			if err := st.ReplaceSideFile(name, zonestore.SideKindPowerDNS, []byte(side)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// named's statistics channel down: each list's first page asks it.
	inv := &inventory.Inventory{
		Fetch: func(context.Context) ([]byte, error) { return nil, errors.New("statistics channel down") },
		Status: func(context.Context, string, string) (bool, error) {
			return false, errors.New("no zonestatus in this test")
		},
		Indexed: func(name, _ string) bool { return st.Known(name) },
	}
	t.Cleanup(inv.Stop)
	s := &zoneservice.Service{Store: st, Inventory: inv}
	z := Zones{Service: func(context.Context) (*zoneservice.Service, error) { return s, nil }}

	// The heap of the zone list held whole.
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	whole, err := z.ListZones(context.Background())
	if err != nil || len(whole) != n {
		t.Fatalf("ListZones: %d zones, %v", len(whole), err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	listHeap := int64(ms.HeapAlloc) - int64(before)
	runtime.KeepAlive(whole)
	whole = nil

	search := func(svc frontend.Service, base uint64) string {
		var get *powerdns.Route
		routes := (&powerdns.API{Service: svc}).Routes()
		for i := range routes {
			if routes[i].Method == http.MethodGet && routes[i].Template == powerdns.Prefix+"/search-data" {
				get = &routes[i]
			}
		}
		w := httptest.NewRecorder()
		get.Handle(w, httptest.NewRequest("GET", powerdns.Prefix+"/search-data?q=*77.test*&max=10000", nil), "")
		if w.Code != http.StatusOK {
			t.Fatalf("search: status %d: %.300s", w.Code, w.Body.String())
		}
		return w.Body.String()
	}
	probe := func() (probedSearch, *atomic.Int64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		p := probedSearch{Zones: z, reads: new(atomic.Int64), base: ms.HeapAlloc, live: new(atomic.Int64)}
		return p, p.live
	}
	// The search over the list read whole: the contract without ZonesPage.
	wp, wlive := probe()
	wantBody := search(struct{ frontend.Service }{wp}, wp.base)
	pp, plive := probe()
	fetches := inv.Fetches.Load()
	body := search(pp, pp.base)
	if f := inv.Fetches.Load() - fetches; f != 1 {
		t.Errorf("the paged search asked named's statistics channel %d times, want 1 (as the list read whole)", f)
	}
	if body != wantBody {
		t.Errorf("the paged search's answer differs:\n%.300s\nwant\n%.300s", body, wantBody)
	}
	for _, want := range []string{`"object_type":"zone","name":"z00077.test."`, `"name":"www.z15977.test.","zone_id"`,
		`"disabled":true,"content":"192.0.2.7"`, `"object_type":"comment"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in the answer: %.300s", want, body)
		}
	}
	if pp.reads.Load() != n {
		t.Errorf("the paged search read %d zones' records, want %d", pp.reads.Load(), n)
	}
	t.Logf("%d zones, %d bytes answered: heap live while the search reads records %d bytes paged, %d over the list read whole; the list held whole %d bytes (paged/list %.2f)",
		n, len(body), plive.Load(), wlive.Load(), listHeap, float64(plive.Load())/float64(listHeap))
	if plive.Load() > listHeap/2 {
		t.Errorf("heap live while the paged search reads records: %d bytes, want under half the list's held whole (%d bytes)", plive.Load(), listHeap)
	}
}

// givenZones is a front-end service whose zone list is given (the
// service below has no zone index); it has no ZonesPage.
type givenZones struct {
	frontend.Service
	zones []zoneInfo
}

func (g givenZones) ListZones(context.Context) ([]zoneInfo, error) { return g.zones, nil }

// TestSearchLeavesRecordCache: a PowerDNS search over the 120 zones of a
// real named (no record matching: every zone is read), after a records
// GET of one zone, leaves the record cache holding what it held before,
// the GET's zone alone, whose snapshot the search read without a
// transfer (issue 27: a scan's snapshots filled the cache, up to its
// bound, with zones read once, which held some 34 MB of Caddy's heap at
// 100,000 zones). Failed before: the search kept all 120 zones.
func TestSearchLeavesRecordCache(t *testing.T) {
	const n = 120
	dir := t.TempDir()
	var conf strings.Builder
	var zones []zoneInfo
	for i := range n {
		z := fmt.Sprintf("zone-%03d.example", i)
		text := "$TTL 300\n@ IN SOA ns1.provider.example. hostmaster.provider.example. 1 3600 600 86400 300\n" +
			"@ IN NS ns1.provider.example.\n@ IN A 192.0.2.10\nwww IN CNAME @\n"
		path := filepath.Join(dir, z+".db")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&conf, "zone %q { type primary; file %q; allow-transfer { key %q; }; };\n", z, path, testbind.TSIGKeyName)
		zones = append(zones, zoneInfo{Name: z, Type: "primary"})
	}
	ns := testbind.Start(t, &testbind.Options{ExtraConfig: conf.String()})
	c, err := dnsupdate.NewClient(ns.DNSAddr, &dnsupdate.TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	u := dnsupdate.NewUpdater(c)
	t.Cleanup(u.Close)
	root := zoneservice.NewServer(zoneservice.ServerConfig{Root: zoneservice.ViewParts{Updater: u}}).Root()
	z := Zones{Service: func(context.Context) (*zoneservice.Service, error) { return root, nil }}
	ctx := context.Background()
	got := zones[n/3].Name
	if _, sets, err := z.Records(ctx, got); err != nil || len(sets) != 4 {
		t.Fatalf("records GET of %s: %d RRsets, %v", got, len(sets), err)
	}
	cached := func() []string {
		var out []string
		for _, zi := range zones {
			if u.Cached(zi.Name, 1) != nil {
				out = append(out, zi.Name)
			}
		}
		return out
	}
	before := cached()

	var get *powerdns.Route
	routes := (&powerdns.API{Service: givenZones{Service: z, zones: zones}}).Routes()
	for i := range routes {
		if routes[i].Method == http.MethodGet && routes[i].Template == powerdns.Prefix+"/search-data" {
			get = &routes[i]
		}
	}
	w := httptest.NewRecorder()
	get.Handle(w, httptest.NewRequest("GET", powerdns.Prefix+"/search-data?q=nothing-matches&max=10", nil), "")
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != "[]" {
		t.Fatalf("search: status %d: %.300s", w.Code, w.Body.String())
	}
	after := cached()
	if len(before) != 1 || before[0] != got || !slices.Equal(after, before) || u.Transfers() != n {
		t.Fatalf("the record cache held %d zones after the records GET (%v), %d after the search (%v, …), %d transfers (want %d)",
			len(before), before, len(after), after[:min(3, len(after))], u.Transfers(), n)
	}
}
