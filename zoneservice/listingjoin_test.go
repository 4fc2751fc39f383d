package zoneservice

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// walkInventoryWhole is walkInventory as it was (every entry read first, a map of them), for the comparisons; it calls fn for each zone of named's and of the indexes
// (by view; "" is the index of the zones addressed without a view), in
// order of name then view, without building the list (a page of it is
// all a request keeps). An entry of a view's index marks that view's zone
// of its name managed; an entry of the index without a view marks the
// zone of its name in the default view, else in the first view that has
// one. An entry named has not reported (a zone created since the
// snapshot) is listed from the index, in its view (the default view, or
// named's only view, for one of no view).
func walkInventoryWhole(snap *inventory.Snapshot, indexed map[string][]zonestore.Entry, fn func(*ListedZone)) {
	type key struct{ name, view string }
	byKey := map[key]*zonestore.Entry{}
	for view, es := range indexed {
		for i := range es {
			byKey[key{es[i].Name, view}] = &es[i]
		}
	}
	defaultView := defaultViewOf(snap)
	// The entries no zone of the snapshot stands for, sorted.
	zones := snap.Zones()
	var extra []ListedZone
	for view, es := range indexed {
		for i := range es {
			e := &es[i]
			first, _ := slices.BinarySearchFunc(zones, e.Name, func(z inventory.Zone, name string) int { return strings.Compare(z.Name, name) })
			found := false
			for k := first; k < len(zones) && zones[k].Name == e.Name; k++ {
				if zones[k].View == view || view == "" && indexedHereWhole(zones, k) {
					found = true
					break
				}
			}
			if !found {
				v := view
				if v == "" {
					v = defaultView
				}
				extra = append(extra, ListedZone{Name: e.Name, View: v, Type: e.Type, Managed: true, Source: inventory.SourceAPI, Created: e.Created})
			}
		}
	}
	sortListed(extra)
	var lz ListedZone
	for i := range zones {
		z := &zones[i]
		for len(extra) > 0 && compareKey(extra[0].Name, extra[0].View, z.Name, z.View) < 0 {
			fn(&extra[0])
			extra = extra[1:]
		}
		lz = ListedZone{Name: z.Name, View: z.View, Type: z.Type, Serial: z.Serial, HasSerial: z.HasSerial, Source: z.Source}
		e := byKey[key{z.Name, z.View}]
		if e == nil && indexedHereWhole(zones, i) {
			e = byKey[key{z.Name, ""}]
		}
		if e != nil {
			lz.Managed, lz.Created = true, e.Created
			if lz.Source != inventory.SourceNamedConf {
				lz.Source = inventory.SourceAPI
			}
		}
		fn(&lz)
	}
	for i := range extra {
		fn(&extra[i])
	}
}

// indexedHereWhole reports whether zones[i] is the zone of its name that an
// entry of the index without a view stands for: the default view's, else
// the first view's.
func indexedHereWhole(zones []inventory.Zone, i int) bool {
	name := zones[i].Name
	first := i
	for first > 0 && zones[first-1].Name == name {
		first--
	}
	for k := first; k < len(zones) && zones[k].Name == name; k++ {
		if zones[k].View == inventory.DefaultView {
			return k == i
		}
	}
	return first == i
}

// memIndex is an index in memory, sorted by name, that counts its List
// calls and the entries they return.
type memIndex struct {
	es      []zonestore.Entry
	lists   atomic.Int64
	entries atomic.Int64
}

func (m *memIndex) Get(name string) (zonestore.Entry, bool, error) {
	i, ok := slices.BinarySearchFunc(m.es, name, func(e zonestore.Entry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return zonestore.Entry{}, false, nil
	}
	return m.es[i], true, nil
}

func (m *memIndex) Put(e zonestore.Entry) error { panic("not for the listing") }
func (m *memIndex) Remove(string) error         { panic("not for the listing") }

func (m *memIndex) List(typ, cursor string, limit int) ([]zonestore.Entry, string, int, error) {
	m.lists.Add(1)
	i, _ := slices.BinarySearchFunc(m.es, cursor, func(e zonestore.Entry, n string) int { return strings.Compare(e.Name, n) })
	for i < len(m.es) && m.es[i].Name <= cursor {
		i++
	}
	j := len(m.es)
	if limit > 0 {
		j = min(j, i+limit)
	}
	page := slices.Clone(m.es[i:j])
	m.entries.Add(int64(len(page)))
	next := ""
	if j < len(m.es) {
		next = page[len(page)-1].Name
	}
	return page, next, len(m.es), nil
}

// joinCase is a snapshot of named's zones and indexes by view, at random:
// names in one or two views (or none: created since), entries in the
// index of no view and of each view.
func joinCase(r *rand.Rand, names int, views []string) (*inventory.Snapshot, map[string]*memIndex) {
	var zones []inventory.Zone
	idx := map[string]*memIndex{"": {}}
	for _, v := range views {
		idx[v] = &memIndex{}
	}
	created := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for i := range names {
		name := fmt.Sprintf("z%06d.test", i)
		for _, v := range views {
			if r.IntN(3) > 0 {
				zones = append(zones, inventory.Zone{Name: name, View: v, Type: "primary", Serial: uint32(i), HasSerial: true, Source: []string{"", inventory.SourceNZD, inventory.SourceNamedConf}[r.IntN(3)]})
			}
		}
		for _, v := range append([]string{""}, views...) {
			if r.IntN(4) == 0 {
				idx[v].es = append(idx[v].es, zonestore.Entry{Name: name, Type: "primary", Created: created.Add(time.Duration(i) * time.Second)})
			}
		}
	}
	return inventory.NewSnapshot(zones, views), idx
}

// TestListingJoinsAPageAtATime: the list of every zone is joined from
// the snapshot and each index read a page at a time as the walk goes
// (one page of each index read before the first zone is listed, at most
// one page more per rebuildPage zones listed), where the join read every
// entry of every index first and held them, with a map of them; the
// zones listed are the same, in the same order, as that join's, for
// snapshots and indexes at random (one view or three; zones of no view's
// index, of a view's, of both; entries named has no zone for).
func TestListingJoinsAPageAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 5))
	for _, views := range [][]string{{inventory.DefaultView}, {inventory.DefaultView, "a", "z"}} {
		snap, idx := joinCase(r, 5*rebuildPage, views)
		whole := map[string][]zonestore.Entry{}
		srcs := map[string]entrySource{}
		for v, x := range idx {
			whole[v] = x.es
			srcs[v] = &indexPages{x: x}
		}
		var want []ListedZone
		walkInventoryWhole(snap, whole, func(z *ListedZone) { want = append(want, *z) })
		var got []ListedZone
		first, most := int64(-1), int64(0)
		read := func() int64 {
			n := int64(0)
			for _, x := range idx {
				n += x.entries.Load()
			}
			return n
		}
		if err := walkInventory(snap, srcs, func(z *ListedZone) {
			got = append(got, *z)
			if first < 0 {
				first = read()
			}
			most = max(most, read()-int64(len(got)))
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d views: %d zones listed differ from the join of every entry (%d zones)", len(views), len(got), len(want))
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("first difference at %d: %+v, want %+v", i, got[i], want[i])
					break
				}
			}
		}
		n := int64(0)
		for _, x := range idx {
			n += int64(len(x.es))
		}
		t.Logf("%d views, %d zones listed, %d entries: %d read before the first zone, at most %d read ahead", len(views), len(got), n, first, most)
		if limit := int64(len(idx) * rebuildPage); first > limit || most > limit {
			t.Errorf("%d entries of %d read before the first zone was listed, at most %d ahead of the zones listed: want at most %d (a page of each index)", first, n, most, limit)
		}
	}
}

// BenchmarkListingRebuildHeap: the join of every zone for the list of
// every zone (what each new snapshot of named's zones starts in the
// background) at 20,000 and 100,000 zones, all in the index, as it was
// (every entry read first, a map of them: walkInventoryWhole) and a page
// at a time (walkInventory), the listing's chunks built both ways, same
// run: the heap allocated and its peak above the live heap before
// (HeapAlloc sampled every millisecond).
//
//	go test ./zoneservice -run '^$' -bench BenchmarkListingRebuildHeap -benchtime 1x
func BenchmarkListingRebuildHeap(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			zones := make([]inventory.Zone, n)
			x := &memIndex{es: make([]zonestore.Entry, n)}
			created := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			for i := range zones {
				name := fmt.Sprintf("zone%06d.example", i)
				zones[i] = inventory.Zone{Name: name, View: inventory.DefaultView, Type: "primary", Serial: 2026112701, HasSerial: true, Source: inventory.SourceNZD}
				x.es[i] = zonestore.Entry{Name: name, Type: "primary", Created: created, Fingerprint: fmt.Sprintf("%032x", i)}
			}
			snap := inventory.NewSnapshot(zones, []string{inventory.DefaultView})
			build := func(walk func(fn func(*ListedZone))) [][]ListedZone {
				var chunks [][]ListedZone
				var chunk []ListedZone
				walk(func(z *ListedZone) {
					if len(chunk) == listChunk {
						chunks = append(chunks, chunk)
						chunk = make([]ListedZone, 0, listChunk)
					}
					chunk = append(chunk, *z)
				})
				return append(chunks, chunk)
			}
			measure := func(walk func(fn func(*ListedZone))) (peak, alloc float64) {
				runtime.GC()
				var ms0 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				var top atomic.Uint64
				done, sampled := make(chan struct{}), make(chan struct{})
				go func() {
					defer close(sampled)
					var ms runtime.MemStats
					for {
						runtime.ReadMemStats(&ms)
						top.Store(max(top.Load(), ms.HeapAlloc))
						select {
						case <-done:
							return
						case <-time.After(time.Millisecond):
						}
					}
				}()
				chunks := build(walk)
				close(done)
				<-sampled
				var ms1 runtime.MemStats
				runtime.ReadMemStats(&ms1)
				runtime.KeepAlive(chunks)
				return float64(int64(top.Load())-int64(ms0.HeapAlloc)) / (1 << 20), float64(ms1.TotalAlloc-ms0.TotalAlloc) / (1 << 20)
			}
			for range b.N {
				wPeak, wAlloc := measure(func(fn func(*ListedZone)) {
					// As rebuild read the index: every page, appended.
					var es []zonestore.Entry
					for cursor := ""; ; {
						page, next, _, _ := x.List("", cursor, rebuildPage)
						es = append(es, page...)
						if next == "" {
							break
						}
						cursor = next
					}
					walkInventoryWhole(snap, map[string][]zonestore.Entry{"": es}, fn)
				})
				pPeak, pAlloc := measure(func(fn func(*ListedZone)) {
					if err := walkInventory(snap, map[string]entrySource{"": &indexPages{x: x}}, fn); err != nil {
						b.Fatal(err)
					}
				})
				b.ReportMetric(wPeak, "MB-peak-whole")
				b.ReportMetric(pPeak, "MB-peak-paged")
				b.ReportMetric(pPeak/wPeak, "x-peak")
				b.ReportMetric(wAlloc, "MB-alloc-whole")
				b.ReportMetric(pAlloc, "MB-alloc-paged")
			}
		})
	}
}

// TestListingHeap: the list of every zone keeps a row of 56 bytes a zone
// beside its name (its view, type and source shared), where it kept a
// ListedZone of 96: at 20,000 zones, half of them managed, under 72
// bytes a zone (names not counted: the snapshot's).
func TestListingHeap(t *testing.T) {
	const n = 20_000
	zones := make([]inventory.Zone, n)
	x := &memIndex{}
	created := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for i := range zones {
		name := fmt.Sprintf("zone%06d.example", i)
		zones[i] = inventory.Zone{Name: name, View: inventory.DefaultView, Type: "primary", Serial: 2026112701, HasSerial: true, Source: inventory.SourceNZD}
		if i%2 == 0 {
			x.es = append(x.es, zonestore.Entry{Name: name, Type: "primary", Created: created})
		}
	}
	snap := inventory.NewSnapshot(zones, []string{inventory.DefaultView})
	s := &Service{}
	base := heapLive()
	if err := s.rebuild(snap, map[string]Index{"": x}); err != nil {
		t.Fatal(err)
	}
	perZone := float64(int64(heapLive())-int64(base)) / n
	runtime.KeepAlive(snap)
	runtime.KeepAlive(x)
	page, _, total := s.all.page(ListFilter{}, "zone000100.example@_default", 2)
	if total != n || len(page) != 2 || page[0].Name != "zone000101.example" || page[0].Managed || page[1] != (ListedZone{Name: "zone000102.example", View: inventory.DefaultView, Type: "primary", Serial: 2026112701, HasSerial: true, Managed: true, Source: inventory.SourceAPI, Created: created}) {
		t.Errorf("page: %+v, total %d", page, total)
	}
	t.Logf("%.1f bytes live a zone in the list of %d zones", perZone, n)
	if perZone >= 72 {
		t.Errorf("%.1f bytes live a zone in the list, want under 72 (a row of 56)", perZone)
	}
}

func heapLive() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
