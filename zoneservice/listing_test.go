package zoneservice

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// countingStore counts the index entries the service reads (List's and
// Get's).
type countingStore struct {
	*faultyStore
	read atomic.Int64
}

func (c *countingStore) List(typ, cursor string, limit int) ([]zonestore.Entry, string, int, error) {
	es, next, total, err := c.faultyStore.List(typ, cursor, limit)
	c.read.Add(int64(len(es)))
	return es, next, total, err
}

func (c *countingStore) Get(name string) (zonestore.Entry, bool, error) {
	c.read.Add(1)
	return c.faultyStore.Get(name)
}

// A page of the list of every zone costs its own zones, whatever the
// number of zones: at 5,000 zones of named (half of them in the index),
// pages at cursors all over the list, and the creates between them,
// touch the index entries and listed zones of the page and of the
// changes, not every zone. Before the list was kept between requests,
// each page read the whole index (2,500 entries) and walked every zone.
func TestAllZonesPagesAreFlat(t *testing.T) {
	const n, limit, pages = 5000, 100, 20
	r := newRig(t)
	cs := &countingStore{faultyStore: r.store}
	r.s.Store = cs
	ctx := context.Background()
	var zones []string
	for i := range n {
		zones = append(zones, fmt.Sprintf("z%05d.test _default primary", i))
	}
	body := statsOf(zones...)
	var fetches atomic.Int64
	r.s.Inventory = &inventory.Inventory{
		Fetch:   func(context.Context) ([]byte, error) { fetches.Add(1); return body, nil },
		Indexed: func(name, _ string) bool { _, ok, _ := r.store.Get(name); return ok },
		Refresh: time.Hour,
	}
	defer r.s.Inventory.Stop()
	for i := 0; i < n; i += 2 {
		if err := r.store.Put(zonestore.Entry{Name: fmt.Sprintf("z%05d.test", i), Type: "primary"}); err != nil {
			t.Fatal(err)
		}
	}
	// The first page joins every zone once.
	if _, _, total, err := r.s.AllZones(ctx, ListFilter{}, "", limit); err != nil || total != n {
		t.Fatalf("first page: total %d, %v", total, err)
	}
	read0, visited0 := cs.read.Load(), r.s.all.visited.Load()
	yes := true
	for p := range pages {
		cursor := fmt.Sprintf("z%05d.test@_default", (p*7919)%n)
		page, next, total, err := r.s.AllZones(ctx, ListFilter{}, cursor, limit)
		if err != nil || len(page) != limit || total != n+p || next != page[limit-1].Key() {
			t.Fatalf("page at %s: %d zones, total %d (want %d), next %q, %v", cursor, len(page), total, n+p, next, err)
		}
		if _, _, total, _ := r.s.AllZones(ctx, ListFilter{Managed: &yes}, cursor, limit); total != n/2+p {
			t.Fatalf("managed: total %d, want %d", total, n/2+p)
		}
		// A create between pages: listed at once, from the index.
		name := fmt.Sprintf("new%02d.test", p)
		if err := r.store.Put(zonestore.Entry{Name: name, Type: "primary"}); err != nil {
			t.Fatal(err)
		}
		if page, _, _, _ := r.s.AllZones(ctx, ListFilter{}, strings.TrimSuffix(name, ".test")+"@", 1); len(page) != 1 || page[0].Name != name || !page[0].Managed {
			t.Fatalf("the zone created is not listed: %+v", page)
		}
	}
	read, visited := cs.read.Load()-read0, r.s.all.visited.Load()-visited0
	t.Logf("%d pages of %d at %d zones: %d index entries read, %d listed zones looked at, %d statistics reads", 3*pages, limit, n, read, visited, fetches.Load())
	// Per page: its zones, one more to find the next cursor, and the
	// index entry of each change.
	if budget := int64(3 * pages * (limit + 2)); read > int64(2*pages) || visited > budget {
		t.Errorf("%d index entries read and %d zones looked at for %d pages of %d and %d creates: want at most %d and %d",
			read, visited, 3*pages, limit, pages, 2*pages, budget)
	}
	if fetches.Load() != 1 {
		t.Errorf("%d reads of the statistics channel, want 1", fetches.Load())
	}
}
