package history

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFailureHealth: a write that fails (the active segment's file
// taking no write, as on a full disk) fails its appends and is reported
// by Check while the history's directory takes no write either (a probe
// file that cannot be written); once it does, Check clears the failure,
// and the next write succeeds. A closed Log's Check is ErrClosed.
func TestWriteFailureHealth(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("Check of a new Log: %v", err)
	}
	if _, err := l.Append(rec("a.example", 1)); err != nil {
		t.Fatal(err)
	}
	// The active segment opened read-only: its writes fail.
	l.mu.Lock()
	good := l.f
	ro, err := os.Open(good.Name())
	if err != nil {
		l.mu.Unlock()
		t.Fatal(err)
	}
	l.f = ro
	l.mu.Unlock()
	if _, err := l.Append(rec("a.example", 2), rec("a.example", 3)); err == nil {
		t.Fatal("an append whose write failed succeeded")
	}
	if err := l.Check(); err != nil {
		t.Fatalf("Check after a failed write, the directory taking writes: %v (the probe clears it)", err)
	}
	if _, err := l.Append(rec("a.example", 2)); err == nil {
		t.Fatal("an append whose write failed succeeded")
	}
	// The directory takes no write either (the probe's name is a
	// directory): Check reports the failure.
	probe := filepath.Join(dir, ".probe")
	if err := os.Mkdir(probe, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err == nil {
		t.Fatal("Check after a failed write, with a directory that takes no write: nil")
	}
	l.mu.Lock()
	l.f = good
	l.mu.Unlock()
	ro.Close()
	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("Check once the directory takes writes: %v", err)
	}
	if _, err := os.Stat(probe); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the probe file is left: %v", err)
	}
	if _, err := l.Append(rec("a.example", 4)); err != nil {
		t.Fatalf("append after the failure: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); !errors.Is(err, ErrClosed) {
		t.Errorf("Check of a closed Log: %v, want ErrClosed", err)
	}
}
