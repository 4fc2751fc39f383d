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
