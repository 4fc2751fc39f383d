package history

import (
	"path/filepath"
	"testing"
	"time"
)

// TestAttach: a Log Attach opens prunes nothing (a segment older than
// the default max_age stays) until the owner's Shared sets its
// retention; Attach on an open Log leaves its retention as it is.
func TestAttach(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	clock := now.Add(-200 * 24 * time.Hour)
	l, err := Open(dir, Options{MaxAge: -1, SegmentSize: 1, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(rec("a.example", 1)); err != nil {
		t.Fatal(err)
	}
	clock = now
	if _, err := l.Append(rec("a.example", 2)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	segments := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		return len(m)
	}
	if n := segments(); n != 2 {
		t.Fatalf("%d segments, want 2", n)
	}
	a, releaseA, err := Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseA()
	if n := segments(); n != 2 {
		t.Errorf("Attach pruned: %d segments, want 2", n)
	}
	o, releaseO, err := Shared(dir, Options{MaxAge: 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseO()
	if o != a {
		t.Fatal("Shared and Attach returned different Logs")
	}
	_, releaseB, err := Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseB()
	a.mu.Lock()
	maxAge := a.opts.MaxAge
	a.mu.Unlock()
	if maxAge != 365*24*time.Hour {
		t.Errorf("retention after the owner's Shared and another Attach: max_age %v, want a year", maxAge)
	}
	if n := segments(); n != 2 {
		t.Errorf("%d segments under a year's max_age, want 2", n)
	}
	_, releaseC, err := Shared(dir, Options{MaxAge: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseC()
	if n := segments(); n != 1 {
		t.Errorf("%d segments under 30 days' max_age, want 1", n)
	}
}
