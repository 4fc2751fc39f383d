package inventory

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestKeptNotAnsweredAfterNamedFailed: a kept snapshot answers the first
// calls after a start while the refresh it asks for runs; once a read of
// named has failed after the start, it is not answered any more (it may
// be days old: what named served when the last run stopped), and a call
// asks named and fails as a start with nothing kept does. When named
// answers again, the call answers its zones. Before, the kept snapshot
// was answered as named's zones for as long as named could not be read.
func TestKeptNotAnsweredAfterNamedFailed(t *testing.T) {
	f := &fakeNamed{views: map[string][]string{"_default": {"a.test 1 primary", "gone.test 2 primary"}}}
	var keep memKeep
	inv := f.inventory()
	keep.attach(inv)
	if _, err := inv.Zones(context.Background()); err != nil {
		t.Fatal(err)
	}
	keep.waitKept(t, "gone.test\t")
	inv.Stop()

	f.mu.Lock()
	f.views["_default"] = []string{"a.test 3 primary"}
	f.fail = errors.New("connection refused")
	f.mu.Unlock()
	f.fetches.Store(0)
	inv2 := f.inventory()
	inv2.Refresh = 20 * time.Millisecond
	keep.attach(inv2)
	defer inv2.Stop()
	snap, err := inv2.Zones(context.Background())
	if err != nil || !snap.Kept {
		t.Fatalf("first call: %v, %v; want the kept snapshot", snap, err)
	}
	for deadline := time.Now().Add(5 * time.Second); f.fetches.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no refresh asked named after the kept answer")
		}
	}
	time.Sleep(50 * time.Millisecond) // the failed refresh has landed
	if snap, err := inv2.Zones(context.Background()); err == nil {
		t.Errorf("after a failed read of named: kept %v, %d zones, no error; want named's error", snap.Kept, len(snap.Zones()))
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	snap, err = inv2.Zones(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if z, ok := snap.Find("a.test", DefaultView); snap.Kept || !ok || z.Serial != 3 {
		t.Errorf("once named answers: kept %v, a.test %v", snap.Kept, z)
	}
}
