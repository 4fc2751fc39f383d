package history

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSyncFailureReported: a background fsync that fails is counted and
// makes Check report it (readiness), where it was ignored; Check clears
// it once the directory takes an fsync again, and later fsyncs count as
// made.
func TestSyncFailureReported(t *testing.T) {
	fail := make(chan bool, 1)
	fail <- true
	l, err := Open(t.TempDir(), Options{SyncDelay: time.Millisecond, syncFile: func(f *os.File) error {
		select {
		case <-fail:
			return errors.New("injected EIO")
		default:
			return f.Sync()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(change("s.example", SourceAPI, 1, 2)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.SyncErrors() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if l.SyncErrors() != 1 {
		t.Fatalf("SyncErrors = %d, want 1", l.SyncErrors())
	}
	l.mu.Lock()
	werr := l.writeErr
	l.mu.Unlock()
	if werr == nil || !strings.Contains(werr.Error(), "injected EIO") {
		t.Fatalf("the failed fsync is not what Check reports: %v", werr)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("Check with the directory writable again: %v", err)
	}
	syncs := l.Syncs()
	if _, err := l.Append(change("s.example", SourceAPI, 2, 3)); err != nil {
		t.Fatal(err)
	}
	for l.Syncs() == syncs && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if l.Syncs() != syncs+1 || l.SyncErrors() != 1 {
		t.Fatalf("after recovery: %d syncs (had %d), %d errors", l.Syncs(), syncs, l.SyncErrors())
	}
}

// TestSyncOfRotatedSegmentNotAFailure: the background fsync of a segment
// that a rotation closed meanwhile (it was fsynced before it was closed)
// is not a failed fsync. Before, the fsync of the closed file failed
// ("file already closed"): SyncErrors counted it and Check's next probe
// ran, for a rotation.
func TestSyncOfRotatedSegmentNotAFailure(t *testing.T) {
	inHook, rotated := make(chan struct{}), make(chan struct{})
	var once bool
	l, err := Open(t.TempDir(), Options{SegmentSize: 1, MaxSize: -1, SyncDelay: time.Millisecond, syncFile: func(f *os.File) error {
		if !once {
			once = true
			close(inHook)
			<-rotated
		}
		return f.Sync()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(change("s.example", SourceAPI, 1, 2)); err != nil {
		t.Fatal(err)
	}
	<-inHook // the syncer holds the first segment
	if _, err := l.Append(change("s.example", SourceAPI, 2, 3)); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	n := len(l.segs)
	l.mu.Unlock()
	if n < 2 {
		t.Fatalf("%d segments: the append did not rotate", n)
	}
	syncs := l.Syncs()
	close(rotated)
	deadline := time.Now().Add(10 * time.Second)
	for l.Syncs() == syncs && l.SyncErrors() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if l.SyncErrors() != 0 {
		l.mu.Lock()
		werr := l.writeErr
		l.mu.Unlock()
		t.Fatalf("SyncErrors = %d after the fsync of a rotated segment: %v", l.SyncErrors(), werr)
	}
}
