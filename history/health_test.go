package history

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
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

// TestFailedWriteKeepsTheWrittenSerial: a change whose entry could not be
// written leaves the zone's last serial where the written entries left
// it, so that the next change's gap check or a catch-up records it from
// named's journal; a zone enqueued again meanwhile keeps its newer
// serial. (Before: LastSerial said the change was recorded, and nothing
// ever recorded it.)
func TestFailedWriteKeepsTheWrittenSerial(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(rec("a.example", 1)); err != nil { // 1 -> 2
		t.Fatal(err)
	}
	l.Baseline("b.example", "", 7)
	l.mu.Lock()
	good := l.f
	ro, err := os.Open(good.Name())
	if err != nil {
		l.mu.Unlock()
		t.Fatal(err)
	}
	l.f = ro
	l.mu.Unlock()
	defer ro.Close()
	for _, e := range []Entry{rec("a.example", 2), rec("a.example", 3), rec("b.example", 7)} {
		if _, err := l.Append(e); err == nil {
			t.Fatal("an append whose write failed succeeded")
		}
	}
	if s, ok := l.LastSerial("a.example", ""); !ok || s != 2 {
		t.Errorf("a.example's last serial after failed writes: %d %v, want 2 (its last entry written)", s, ok)
	}
	if s, ok := l.LastSerial("b.example", ""); !ok || s != 7 {
		t.Errorf("b.example's last serial after a failed write: %d %v, want its baseline 7", s, ok)
	}
	l.mu.Lock()
	l.f = good
	l.mu.Unlock()
	if _, err := l.Append(rec("a.example", 4)); err != nil { // 4 -> 5
		t.Fatal(err)
	}
	if s, _ := l.LastSerial("a.example", ""); s != 5 {
		t.Errorf("a.example's last serial after a write: %d, want 5", s)
	}
}

// TestFailedWriteAtRotationKeepsTheWrittenSerial: a write that fails
// just after the segment was rotated (state.json saved for the entries
// before it) leaves the zone's last serial where the written entries
// left it, also once the history is opened again (a restart), so that
// the start's catch-up records the change from named's journal. Before,
// state.json held the serials of the batch about to be written: after a
// restart LastSerial said the failed change was recorded (3, want 2), as
// after Caddy killed between the rotation and the write.
func TestFailedWriteAtRotationKeepsTheWrittenSerial(t *testing.T) {
	dir := t.TempDir()
	var fail atomic.Bool
	write := func(f *os.File, b []byte) error {
		if fail.Load() {
			return errors.New("no space left on device (test)")
		}
		_, err := f.Write(b)
		return err
	}
	// A segment per write: the second append rotates before it writes.
	l, err := Open(dir, Options{SegmentSize: 1, MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.writeFile = write
	l.mu.Unlock()
	if _, err := l.Append(rec("a.example", 1)); err != nil { // 1 -> 2
		t.Fatal(err)
	}
	fail.Store(true)
	if _, err := l.Append(rec("a.example", 2)); err == nil { // 2 -> 3, not written
		t.Fatal("an append whose write failed succeeded")
	}
	if s, ok := l.LastSerial("a.example", ""); !ok || s != 2 {
		t.Errorf("a.example's last serial after the failed write: %d %v, want 2", s, ok)
	}
	if n := len(l.segs); n < 2 {
		t.Fatalf("%d segments: the append did not rotate", n)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(dir, Options{SegmentSize: 1, MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if s, ok := l.LastSerial("a.example", ""); !ok || s != 2 {
		t.Errorf("a.example's last serial after a restart: %d %v, want 2 (its last entry written)", s, ok)
	}
}
