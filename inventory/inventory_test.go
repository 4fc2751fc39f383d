package inventory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stats renders a /json/v1/zones answer with the zones given per view
// ("name serial type"; serial "-" for none), plus _bind's built-ins.
func stats(views map[string][]string) []byte {
	var vs []string
	for view, zs := range views {
		var items []string
		for _, z := range zs {
			f := strings.Fields(z)
			serial := f[1]
			if serial == "-" {
				serial = `"-"`
			}
			items = append(items, fmt.Sprintf(`{"name":%q,"class":"IN","serial":%s,"type":%q,"loaded":"2026-11-26T14:31:27Z"}`, f[0], serial, f[2]))
		}
		vs = append(vs, fmt.Sprintf(`%q:{"zones":[%s]}`, view, strings.Join(items, ",")))
	}
	vs = append(vs, `"_bind":{"zones":[{"name":"version.bind","class":"CH","serial":0,"type":"builtin"}]}`)
	return []byte(`{"json-stats-version":"1.7","views":{` + strings.Join(vs, ",") + `}}`)
}

func TestParse(t *testing.T) {
	body := stats(map[string][]string{
		"internal": {"b.test 7 primary", "a.test 3 secondary"},
		"external": {"b.test 8 primary", "sec.test - secondary"},
	})
	zones, views, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, z := range zones {
		got = append(got, fmt.Sprintf("%s/%s %s %d %v", z.Name, z.View, z.Type, z.Serial, z.HasSerial))
	}
	want := []string{"a.test/internal secondary 3 true", "b.test/external primary 8 true", "b.test/internal primary 7 true", "sec.test/external secondary 0 false"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("zones:\n got %v\nwant %v", got, want)
	}
	if strings.Join(views, ",") != "external,internal" {
		t.Errorf("views %v", views)
	}
	for _, bad := range []string{``, `[]`, `{"views":`, `{"memory":{}}`} {
		if _, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// fakeNamed serves the statistics and zonestatus of a set of zones.
type fakeNamed struct {
	mu       sync.Mutex
	views    map[string][]string
	conf     map[string]bool // name/view of named.conf zones
	statuses atomic.Int32
	fetches  atomic.Int32
	fail     error
}

func (f *fakeNamed) inventory() *Inventory {
	return &Inventory{
		Fetch: func(context.Context) ([]byte, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.fetches.Add(1)
			if f.fail != nil {
				return nil, f.fail
			}
			return stats(f.views), nil
		},
		Status: func(_ context.Context, name, view string) (bool, error) {
			f.statuses.Add(1)
			return !f.conf[name+"/"+view], nil
		},
	}
}

// Where a zone comes from is asked once per zone, when it first
// appears; a zone that goes and comes back is asked again.
func TestSourceAskedOncePerZone(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"conf.test 1 primary", "nzd.test 2 primary"}}, conf: map[string]bool{"conf.test/_default": true}}
	inv := f.inventory()
	defer inv.Stop()
	ctx := context.Background()
	snap, err := inv.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(snap); got != "conf.test=named.conf nzd.test=nzd" {
		t.Errorf("sources %s", got)
	}
	if _, err := inv.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.statuses.Load(); n != 2 {
		t.Errorf("zonestatus asked %d times for 2 zones over two refreshes, want 2", n)
	}
	f.mu.Lock()
	f.views["_default"] = append(f.views["_default"], "new.test 1 primary")
	f.mu.Unlock()
	snap, _ = inv.RefreshNow(ctx)
	if got := sources(snap); got != "conf.test=named.conf new.test=nzd nzd.test=nzd" || f.statuses.Load() != 3 {
		t.Errorf("after a new zone: sources %s, %d zonestatus", got, f.statuses.Load())
	}
	// Forget drops a zone at once, before named is asked again (the
	// background refresh is stopped: named here still has the zone, and
	// a refresh that Forget's kick starts would rightly list it again).
	inv.Stop()
	inv.Forget("NZD.test.", "")
	snap, _ = inv.Zones(ctx)
	if got := sources(snap); got != "conf.test=named.conf new.test=nzd" {
		t.Errorf("after Forget: %s", got)
	}
}

// A failed refresh keeps the last snapshot; the first one fails the
// call.
func TestFetchFails(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary"}}, fail: errors.New("connection refused")}
	inv := f.inventory()
	defer inv.Stop()
	if _, err := inv.Zones(context.Background()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Zones with named unreachable: %v", err)
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	if _, err := inv.Zones(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.fail = errors.New("connection refused")
	f.mu.Unlock()
	if _, err := inv.RefreshNow(context.Background()); err == nil {
		t.Fatal("RefreshNow hid the failure")
	}
	snap, err := inv.Zones(context.Background())
	if err != nil || len(snap.Zones()) != 1 {
		t.Fatalf("the last snapshot was not kept: %v, %v", snap, err)
	}
	var none *Inventory
	if _, err := none.Zones(context.Background()); !errors.Is(err, ErrNoStatistics) {
		t.Errorf("a nil inventory: %v", err)
	}
}

func sources(s *Snapshot) string {
	var out []string
	for _, z := range s.Zones() {
		out = append(out, z.Name+"="+z.Source)
	}
	return strings.Join(out, " ")
}

func FuzzParse(f *testing.F) {
	f.Add(stats(map[string][]string{"_default": {"a.test 1 primary"}}))
	f.Add([]byte(`{"views":{"v":{"zones":[{"name":".","class":"IN","serial":-1,"type":"hint"}]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		zones, views, err := Parse(body)
		// What the answer decoded whole (json.Unmarshal) gives, where
		// both read it: repeated members count alike (last wins).
		if want, wantViews, werr := parseWhole(body); err == nil && werr == nil && (!slices.Equal(zones, want) || !slices.Equal(views, wantViews)) {
			t.Fatalf("%s:\n got %v %v\nwant %v %v", body, zones, views, want, wantViews)
		}
		if err != nil {
			return
		}
		for i := 1; i < len(zones); i++ {
			a, b := zones[i-1], zones[i]
			if a.Name > b.Name || a.Name == b.Name && a.View > b.View {
				t.Fatalf("not sorted: %v before %v", a, b)
			}
		}
	})
}

// TestForgetRoot: Forget drops the root zone ".", as the snapshot names
// it, and keeps the others (trimming its dot left the empty name, which
// matched nothing).
func TestForgetRoot(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {". 1 primary", "a.test 1 primary"}}}
	inv := f.inventory()
	ctx := context.Background()
	snap, err := inv.RefreshNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(snap); got != ".=nzd a.test=nzd" {
		t.Fatalf("sources %s", got)
	}
	inv.Stop()
	inv.Forget(".", "")
	snap, _ = inv.Zones(ctx)
	if got := sources(snap); got != "a.test=nzd" {
		t.Errorf("after Forget(\".\"): %s", got)
	}
}

// A refresh whose read of named began before a Forget (the zone service
// deleted the zone while named's answer was on its way, and that answer
// still lists it) does not bring the zone back: the snapshot it installs
// keeps hiding what was forgotten meanwhile, until a read begun after the
// Forget lands.
func TestForgetDuringRefreshStaysForgotten(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary", "gone.test 1 primary"}}}
	inv := f.inventory()
	ctx := context.Background()
	if _, err := inv.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}
	inv.Stop()
	inFetch, release := make(chan struct{}), make(chan struct{})
	fetch := inv.Fetch
	inv.Fetch = func(ctx context.Context) ([]byte, error) {
		body, err := fetch(ctx) // named's answer, still listing gone.test
		close(inFetch)
		<-release
		return body, err
	}
	done := make(chan *Snapshot)
	go func() {
		snap, err := inv.RefreshNow(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- snap
	}()
	<-inFetch
	inv.Forget("gone.test", "")
	close(release)
	snap := <-done
	if got := sources(snap); got != "a.test=nzd" {
		t.Errorf("refresh begun before the Forget: %s, want a.test=nzd", got)
	}
	if snap, _ = inv.Zones(ctx); sources(snap) != "a.test=nzd" {
		t.Errorf("after it: %s, want a.test=nzd", sources(snap))
	}
	// named no longer lists it; a read begun after the Forget lands.
	f.mu.Lock()
	f.views["_default"] = []string{"a.test 1 primary"}
	f.mu.Unlock()
	inv.Fetch = fetch
	if snap, err := inv.RefreshNow(ctx); err != nil || sources(snap) != "a.test=nzd" || len(snap.Forgotten) != 0 {
		t.Errorf("next refresh: %s, forgotten %v, %v", sources(snap), snap.Forgotten, err)
	}
}
