package inventory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A snapshot tells the names whose zones changed since each of the
// snapshots before it (ChangedSince): added, gone, another serial, type
// or source, across refreshes, the classification's and Forget's
// snapshots, and not past changedMax names or changedDepth snapshots.
// ChangedSince is new: the list of every zone joined every zone again
// at each new snapshot before.
func TestChangedSince(t *testing.T) {
	zones := map[string]string{"a.test": "1 primary", "b.test": "1 primary", "c.test": "1 secondary", "d.test": "1 primary"}
	body := func() []byte {
		var zs []string
		for name, z := range zones {
			zs = append(zs, name+" "+z)
		}
		return stats(map[string][]string{"_default": zs})
	}
	nzd := map[string]bool{} // what zonestatus answers: reconfigurable
	inv := &Inventory{
		Fetch:        func(context.Context) ([]byte, error) { return body(), nil },
		Status:       func(_ context.Context, name, _ string) (bool, error) { return nzd[name], nil },
		Indexed:      func(name, _ string) bool { return strings.HasPrefix(name, "n") },
		Refresh:      time.Hour,
		ClassifyWait: time.Second,
	}
	defer inv.Stop()
	ctx := context.Background()
	refresh := func() *Snapshot {
		t.Helper()
		snap, err := inv.RefreshNow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	want := func(snap *Snapshot, gen uint64, names ...string) {
		t.Helper()
		got, ok := snap.ChangedSince(gen)
		if !ok || !slices.Equal(got, names) {
			t.Errorf("ChangedSince(%d) at %d: %q, %v; want %q", gen, snap.Gen, got, ok, names)
		}
	}
	for name := range zones {
		nzd[name] = true
	}
	s1 := refresh()
	if _, ok := s1.ChangedSince(0); ok {
		t.Errorf("the first snapshots tell changes since none")
	}
	want(s1, s1.Gen)
	// A serial, a type, a zone added, a zone gone.
	zones["a.test"], zones["c.test"], zones["e.test"] = "2 primary", "1 primary", "1 primary"
	delete(zones, "d.test")
	s2 := refresh()
	want(s2, s1.Gen, "a.test", "c.test", "d.test", "e.test")
	zones["b.test"] = "5 primary"
	s3 := refresh()
	want(s3, s2.Gen, "b.test")
	want(s3, s1.Gen, "a.test", "b.test", "c.test", "d.test", "e.test")
	// Forget keeps them (what it hid is Forgotten's).
	inv.Forget("b.test", "")
	s4, _ := inv.Zones(ctx)
	want(s4, s2.Gen, "b.test")
	// Nothing changed (b.test, which named still serves, is back: the
	// Forgotten of the snapshot before tells it).
	s5 := refresh()
	want(s5, s3.Gen)
	// Past changedMax names: not known since before them.
	for i := range 2000 {
		zones[fmt.Sprintf("n%05d.test", i)] = "1 primary"
	}
	s6 := refresh()
	if got, ok := s6.ChangedSince(s5.Gen); ok {
		t.Errorf("%d names changed, past changedMax: ChangedSince answered %d of them", len(got), len(got))
	}
	// Past changedDepth snapshots: the oldest are not known, the newest
	// always are.
	var gens []uint64
	for i := range 3 * changedDepth {
		zones["a.test"] = fmt.Sprintf("%d primary", 10+i)
		gens = append(gens, refresh().Gen)
		last, _ := inv.Zones(ctx)
		for k := max(0, i-changedDepth); k < i; k++ {
			want(last, gens[k], "a.test")
		}
		if i > changedDepth {
			if _, ok := last.ChangedSince(gens[i-changedDepth-1]); ok {
				t.Errorf("changes told across more than %d snapshots", changedDepth)
			}
		}
	}
}
