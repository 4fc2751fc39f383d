package sharedhistory

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// rec is a change of zone, the i-th (as package history's tests make them).
func rec(zone string, i int) history.Entry {
	return history.Entry{Zone: zone, Type: history.RecordsChanged, Source: history.SourceAPI, Identity: "admin", Frontend: "rest",
		SerialBefore: history.Serial(uint32(i)), SerialAfter: history.Serial(uint32(i + 1)),
		Added: []history.RRset{{Name: fmt.Sprintf("r%d.%s.", i, zone), Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}}}
}

func TestSharedAndLocked(t *testing.T) {
	dir := t.TempDir()
	a, ra, err := Shared(dir, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := Shared(dir+"/", history.Options{})
	if err != nil || a != b {
		t.Fatalf("not shared: %v", err)
	}
	if _, err := history.Open(dir, history.Options{}); err != history.ErrLocked {
		t.Fatalf("second open: %v", err)
	}
	if n := len(OpenLogs()); n != 1 {
		t.Errorf("%d open Logs, want 1", n)
	}
	ra()
	ra()
	if _, err := a.Append(rec("a.example", 0)); err != nil {
		t.Fatalf("closed while held: %v", err)
	}
	rb()
	if _, err := a.Append(rec("a.example", 0)); err != history.ErrClosed {
		t.Fatalf("not closed at last release: %v", err)
	}
	if n := len(OpenLogs()); n != 0 {
		t.Errorf("%d open Logs after the last release, want 0", n)
	}
	l, err := history.Open(dir, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestSharedOpenFailsAndRetries: a Log that cannot be opened (another
// Log holds the directory's lock) is an error, not remembered: once the
// directory is free the next Shared opens it.
func TestSharedOpenFailsAndRetries(t *testing.T) {
	dir := t.TempDir()
	other, err := history.Open(dir, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Shared(dir, history.Options{}); !errors.Is(err, history.ErrLocked) {
		t.Fatalf("Shared of a locked directory: %v, want ErrLocked", err)
	}
	other.Close()
	l, release, err := Shared(dir, history.Options{})
	if err != nil {
		t.Fatalf("Shared once the directory is free: %v", err)
	}
	defer release()
	if _, err := l.Append(rec("a.example", 1)); err != nil {
		t.Fatal(err)
	}
}

// TestAttach: a Log Attach opens prunes nothing (a segment older than
// the default max_age stays) until the owner's Shared sets its
// retention; Attach on an open Log leaves its retention as it is.
func TestAttach(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	clock := now.Add(-200 * 24 * time.Hour)
	l, err := history.Open(dir, history.Options{MaxAge: -1, SegmentSize: 1, Now: func() time.Time { return clock }})
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
	o, releaseO, err := Shared(dir, history.Options{MaxAge: 365 * 24 * time.Hour})
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
	maxAge, _ := a.Retention()
	if maxAge != 365*24*time.Hour {
		t.Errorf("retention after the owner's Shared and another Attach: max_age %v, want a year", maxAge)
	}
	if n := segments(); n != 2 {
		t.Errorf("%d segments under a year's max_age, want 2", n)
	}
	_, releaseC, err := Shared(dir, history.Options{MaxAge: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseC()
	if n := segments(); n != 1 {
		t.Errorf("%d segments under 30 days' max_age, want 1", n)
	}
}
