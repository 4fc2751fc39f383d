package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/powerdns"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// writeSizes is a ResponseWriter that keeps the size of each Write and
// the most heap live at one (after a collection, less what the answer
// written so far holds).
type writeSizes struct {
	*httptest.ResponseRecorder
	largest, writes int
	base            uint64
	live            int64
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(p))
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	w.live = max(w.live, int64(ms.HeapAlloc)-int64(w.base)-int64(w.Body.Cap()))
	return w.ResponseRecorder.Write(p)
}

// TestPowerDNSZoneListStreamed: the PowerDNS API's zone list over the
// zone service (issue 27, the list of 100,000 zones held whole in
// flight: some 18 MB) is read a page of 1,000 zones at a time and
// streamed, no write of the answer larger than its 64 KiB buffer, where
// the list answered at once is one write of the whole answer; its bytes
// are those of the list answered at once, serials from the inventory's
// snapshot included, and named's statistics channel is read once for
// the whole list, also when it fails (the pages after the first ask it
// nothing).
func TestPowerDNSZoneListStreamed(t *testing.T) {
	const n = 2500
	st, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var stats strings.Builder
	stats.WriteString(`{"views":{"_default":{"zones":[`)
	for i := range n {
		name := fmt.Sprintf("z%05d.test", i)
		if err := st.Put(zonestore.Entry{Name: name, Type: "primary"}); err != nil {
			t.Fatal(err)
		}
		if i%3 != 0 { // a zone named has not loaded, or created since, has none
			if stats.Len() > 40 {
				stats.WriteString(",")
			}
			fmt.Fprintf(&stats, `{"name":%q,"class":"IN","serial":%d,"type":"primary"}`, name, 1000+i)
		}
	}
	stats.WriteString(`]}}}`)
	var fetchErr error
	// A fresh inventory for each list: its first page asks named.
	newInventory := func() *inventory.Inventory {
		inv := &inventory.Inventory{
			Fetch: func(context.Context) ([]byte, error) { return []byte(stats.String()), fetchErr },
			Status: func(context.Context, string, string) (bool, error) {
				return false, errors.New("no zonestatus in this test")
			},
			Indexed: func(name, _ string) bool { return st.Known(name) },
		}
		t.Cleanup(inv.Stop)
		return inv
	}

	list := func(s frontend.Service) (string, *writeSizes) {
		var get *powerdns.Route
		routes := (&powerdns.API{Service: s}).Routes()
		for i := range routes {
			if routes[i].Method == http.MethodGet && routes[i].Template == powerdns.Prefix+"/zones" {
				get = &routes[i]
			}
		}
		w := &writeSizes{ResponseRecorder: httptest.NewRecorder()}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		w.base = ms.HeapAlloc
		get.Handle(w, httptest.NewRequest("GET", powerdns.Prefix+"/zones", nil), "")
		if w.Code != http.StatusOK {
			t.Fatalf("zone list: status %d: %.300s", w.Code, w.Body.String())
		}
		return w.Body.String(), w
	}
	for _, fail := range []bool{false, true} {
		fetchErr = nil
		if fail {
			fetchErr = errors.New("statistics channel down")
		}
		inv := newInventory()
		s := &zoneservice.Service{Store: st, Inventory: inv}
		z := Zones{Service: func(context.Context) (*zoneservice.Service, error) { return s, nil }}
		// The list answered at once: the contract without ZonesPage.
		whole, ww := list(struct{ frontend.Service }{z})
		wholeFetches := inv.Fetches.Load()
		inv.Stop()
		inv = newInventory()
		s.Inventory = inv
		paged, pw := list(z)
		if paged != whole {
			t.Errorf("failing named %v: the streamed list differs:\n%.300s\nwant\n%.300s", fail, paged, whole)
		}
		if want := `"serial":1001,`; !fail && !strings.Contains(paged, want) {
			t.Errorf("no %s in the list: %.300s", want, paged)
		}
		t.Logf("failing named %v: %d zones, %d bytes: at most %d bytes of heap live at a write of the answer streamed, %d at the list's answered at once",
			fail, n, len(paged), pw.live, ww.live)
		if pw.largest > 64<<10 || wholeFetches != 1 || inv.Fetches.Load() != 1 {
			t.Errorf("failing named %v: largest write %d bytes of %d in %d writes (want ≤ 64 KiB; the list at once: %d in %d); statistics read %d times (the list at once: %d), want 1",
				fail, pw.largest, len(paged), pw.writes, ww.largest, ww.writes, inv.Fetches.Load(), wholeFetches)
		}
	}
}
