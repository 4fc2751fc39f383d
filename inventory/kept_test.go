package inventory

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// memKeep is a Save and Load over memory.
type memKeep struct {
	mu    sync.Mutex
	data  []byte
	saves int
}

func (m *memKeep) attach(inv *Inventory) {
	inv.Save = func(data []byte) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.data = append([]byte(nil), data...)
		m.saves++
		return nil
	}
	inv.Load = func() ([]byte, bool, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.data, m.data != nil, nil
	}
}

// waitKept waits until what is kept has want in it.
func (m *memKeep) waitKept(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m.mu.Lock()
		got := string(m.data)
		m.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kept %q, want %q in it", got, want)
		}
	}
}

// A new inventory answers its first call from what the last one kept,
// sources included, without asking named; the refresh that follows at
// once shows the zones added and removed meanwhile, and asks zonestatus
// only about the new one.
func TestKeptAcrossRestart(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"conf.test 1 primary", "nzd.test 2 primary", "old.test 3 primary"}},
		conf: map[string]bool{"conf.test/_default": true}}
	var keep memKeep
	inv := f.inventory()
	keep.attach(inv)
	if _, err := inv.Zones(context.Background()); err != nil {
		t.Fatal(err)
	}
	keep.waitKept(t, "old.test\t_default\tprimary\t3\tnzd\n")
	inv.Stop()

	// named changes while nothing watches it, and its statistics
	// channel does not answer yet.
	f.mu.Lock()
	f.views["_default"] = []string{"conf.test 1 primary", "new.test 4 primary", "nzd.test 2 primary"}
	f.fail = errors.New("connection refused")
	f.mu.Unlock()
	f.fetches.Store(0)
	f.statuses.Store(0)
	inv2 := f.inventory()
	inv2.Refresh = 20 * time.Millisecond
	keep.attach(inv2)
	defer inv2.Stop()
	snap, err := inv2.Zones(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(snap); !snap.Kept || got != "conf.test=named.conf nzd.test=nzd old.test=nzd" {
		t.Errorf("first answer: kept %v, %s", snap.Kept, got)
	}
	if n := f.statuses.Load(); n != 0 {
		t.Errorf("%d zonestatus for the kept zones", n)
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		snap, _ = inv2.Zones(context.Background())
		if got := sources(snap); got == "conf.test=named.conf new.test=nzd nzd.test=nzd" && !snap.Kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the refresh: kept %v, %s", snap.Kept, sources(snap))
		}
	}
	if n := f.statuses.Load(); n != 1 {
		t.Errorf("%d zonestatus, want 1 (the new zone's)", n)
	}
	keep.waitKept(t, "new.test\t_default\tprimary\t4\tnzd\n")
}

// Fresh never answers a kept snapshot: it waits for named.
func TestFreshWaitsForNamed(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary"}}}
	var keep memKeep
	inv := f.inventory()
	keep.attach(inv)
	if _, err := inv.Zones(context.Background()); err != nil {
		t.Fatal(err)
	}
	keep.waitKept(t, "a.test\t")
	inv.Stop()
	f.mu.Lock()
	f.views["_default"] = []string{"a.test 2 primary"}
	f.mu.Unlock()
	inv2 := f.inventory()
	keep.attach(inv2)
	defer inv2.Stop()
	snap, err := inv2.Fresh(context.Background())
	if err != nil || snap.Kept {
		t.Fatalf("Fresh: %v, %v", snap, err)
	}
	if z, ok := snap.Find("a.test", DefaultView); !ok || z.Serial != 2 {
		t.Errorf("Fresh answered serial %v", z)
	}
}

// What cannot be read back (cut short, not ours, out of order) is not
// used: the first call asks named.
func TestKeptUnreadable(t *testing.T) {
	whole := encodeKept(NewSnapshot([]Zone{{Name: "a.test", View: DefaultView, Type: "primary"}}, []string{DefaultView}))
	for _, bad := range [][]byte{whole[:len(whole)-3], []byte("something else\n"),
		[]byte(keptHeader + "\ntaken 1\nb\t_default\tprimary\t-\t-\na\t_default\tprimary\t-\t-\nend 2\n")} {
		f := &fakeNamed{views: map[string][]string{"_default": {"z.test 1 primary"}}}
		inv := f.inventory()
		inv.Load = func() ([]byte, bool, error) { return bad, true, nil }
		snap, err := inv.Zones(context.Background())
		inv.Stop()
		if err != nil || snap.Kept || f.fetches.Load() != 1 {
			t.Errorf("%q: kept %v, %d fetches, %v", bad, snap != nil && snap.Kept, f.fetches.Load(), err)
		}
	}
}

// Names, views and types with backslashes, tabs and newlines come back
// as they were.
func TestKeptRoundTrip(t *testing.T) {
	zones := []Zone{
		{Name: `a\032b.test`, View: "a view", Type: "primary", Serial: 7, HasSerial: true, Source: SourceNZD},
		{Name: "new\nline.test", View: "tab\tview", Type: "secondary"},
		{Name: "x.test", View: "a view", Type: "primary", Serial: 1<<32 - 1, HasSerial: true, Source: SourceNamedConf},
	}
	in := NewSnapshot(zones, []string{"a view", "tab\tview"})
	in.Taken = time.Unix(0, 1234)
	out, err := decodeKept(encodeKept(in))
	if err != nil {
		t.Fatal(err)
	}
	if !out.Kept || !out.Taken.Equal(in.Taken) || strings.Join(out.Views, "|") != strings.Join(in.Views, "|") || len(out.Zones()) != 3 {
		t.Fatalf("got %+v", out)
	}
	for i, z := range out.Zones() {
		if z != zones[i] {
			t.Errorf("zone %d: %+v, want %+v", i, z, zones[i])
		}
	}
}

// Forget publishes a snapshot that shares its zones with the one before
// (no copy of every zone), hides the zone dropped, and leaves the
// snapshot before as it was.
func TestForgetDoesNotCopy(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary", "b.test 2 primary", "c.test 3 primary"}, "other": {"b.test 2 primary"}}}
	inv := f.inventory()
	defer inv.Stop()
	before, err := inv.Zones(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inv.Stop() // no refresh: named here still has the zones
	inv.Forget("b.test", DefaultView)
	mid, _ := inv.Zones(context.Background())
	inv.Stop()
	inv.Forget("c.test.", "")
	after, _ := inv.Zones(context.Background())
	if &after.rs[0] != &before.rs[0] || &mid.rs[0] != &before.rs[0] {
		t.Error("Forget copied the zones")
	}
	list := func(s *Snapshot) string {
		var out []string
		for _, z := range s.Zones() {
			out = append(out, z.Key())
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		s         *Snapshot
		want      string
		forgotten string
	}{
		{before, "a.test/_default b.test/_default b.test/other c.test/_default", ""},
		{mid, "a.test/_default b.test/other c.test/_default", "b.test"},
		{after, "a.test/_default b.test/other", "b.test c.test"},
	} {
		if got := list(c.s); got != c.want || strings.Join(c.s.Forgotten, " ") != c.forgotten {
			t.Errorf("got %s (forgotten %v), want %s (forgotten %s)", got, c.s.Forgotten, c.want, c.forgotten)
		}
	}
	if _, ok := after.Find("b.test", DefaultView); ok {
		t.Error("Find found a forgotten zone")
	}
	if got := after.Named("b.test"); len(got) != 1 || got[0].View != "other" {
		t.Errorf("Named: %v", got)
	}
}

// The refresh a kept snapshot asks for and a Fresh that comes meanwhile
// share one read of named (as at a start: the first page, then the
// history's catch-up).
func TestKeptRefreshReadOnce(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary"}}}
	var keep memKeep
	inv := f.inventory()
	keep.attach(inv)
	if _, err := inv.Zones(context.Background()); err != nil {
		t.Fatal(err)
	}
	keep.waitKept(t, "a.test\t")
	inv.Stop()
	f.fetches.Store(0)
	inv2 := f.inventory()
	inv2.Refresh = time.Hour
	keep.attach(inv2)
	defer inv2.Stop()
	if snap, err := inv2.Zones(context.Background()); err != nil || !snap.Kept {
		t.Fatalf("first: %v %v", snap, err)
	}
	if snap, err := inv2.Fresh(context.Background()); err != nil || snap.Kept {
		t.Fatalf("Fresh: %v %v", snap, err)
	}
	time.Sleep(300 * time.Millisecond) // the kicked refresh, had it read again
	if n := f.fetches.Load(); n != 1 {
		t.Errorf("%d reads of named, want 1", n)
	}
}
