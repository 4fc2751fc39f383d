package integration

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
)

// TestTwoInstances: two Caddy processes share one zone directory and one
// named. 50 concurrent creates of the same 10 names, split across them,
// (each body different) make exactly 10 zones; every other request is a
// 409; the zone directory holds exactly the 10 zone files and the
// catalog's; both instances list the same index and the same catalog.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	ns := startNamed(t)
	// Both keep the same catalog: both race to create it on first use.
	opts := caddyOpts{extra: "catalog catalog.twin.test"}
	a := startCaddy(t, ns, opts)
	b := startCaddy(t, ns, opts)
	var names []string
	for i := 0; i < 10; i++ {
		names = append(names, fmt.Sprintf("twin%d.test", i))
	}
	type result struct {
		zone   string
		status int
		body   string
	}
	results := make(chan result, 50)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 50; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		zone := names[(i*7)%10]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// Each request's body differs (its serial), as competing
			// clients' would: an identical body is a retry of the request
			// that made the zone, which the lifecycle answers 200.
			body := zoneBody(zone)
			body["zoneConfig"].(map[string]any)["soa"].(map[string]any)["serial"] = 2026112500 + i
			r := c.send("POST", "/api/v1/zones", body, map[string]string{"Authorization": "Bearer " + testToken})
			results <- result{zone, r.status, string(r.raw)}
		}()
	}
	close(start)
	wg.Wait()
	close(results)
	created := map[string]int{}
	conflicts := 0
	for r := range results {
		switch r.status {
		case http.StatusCreated:
			created[r.zone]++
		case http.StatusConflict:
			conflicts++
		default:
			t.Errorf("create %s: %d %s", r.zone, r.status, r.body)
		}
	}
	for _, z := range names {
		if created[z] != 1 {
			t.Errorf("zone %s created %d times", z, created[z])
		}
	}
	if conflicts != 40 {
		t.Errorf("%d conflicts, want 40", conflicts)
	}
	// No stray files: exactly the ten zone files (the index lives in
	// .zoneapi, which dirNames leaves out).
	want := []string{"catalog.twin.test.catalog.db", "catalog.twin.test.catalog.db.jnl"}
	for _, z := range names {
		want = append(want, z+".zone")
	}
	sort.Strings(want)
	if got := dirNames(t, ns.ZoneDir); !slices.Equal(got, want) {
		t.Errorf("zone dir = %q, want %q", got, want)
	}
	// Both instances list the same index, and named serves every zone.
	list := func(c *caddy) []string {
		r := c.do("GET", "/api/v1/zones?limit=1000", nil)
		expect(t, r, http.StatusOK, "list")
		return strs(r.body["zones"])
	}
	la, lb := list(a), list(b)
	if !slices.Equal(la, names) || !slices.Equal(lb, names) {
		t.Errorf("index on a = %q, on b = %q, want %q", la, lb, names)
	}
	for _, z := range names {
		if _, ok := soaOn(ns, z); !ok {
			t.Errorf("named does not serve %s", z)
		}
	}
	// One catalog, with exactly the ten zones, as both instances see it.
	for _, c := range []*caddy{a, b} {
		r := c.do("GET", "/api/v1/catalog", nil)
		expect(t, r, http.StatusOK, "catalog")
		var members []string
		for _, m := range toSlice(r.body["members"]) {
			members = append(members, m.(map[string]any)["zone"].(string))
		}
		drift, _ := r.body["drift"].(map[string]any)
		if !slices.Equal(members, names) || len(toSlice(drift["missing"]))+len(toSlice(drift["stray"])) != 0 {
			t.Errorf("catalog on %s: members %q, drift %v", c.Base, members, drift)
		}
	}
}
