package zonestore

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Concurrent creates share the zone directory's fsync, and each returns
// only once its file's name is durable: an fsync that started after its
// link completed. The directory's fsync is replaced by one that notes
// the files in the directory when it starts (what it makes durable) and
// takes a millisecond, so that creates pile up behind it.
func TestCreateFileSharesDirectoryFsync(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	durable := map[string]bool{}
	fsyncs := 0
	s.dirSync.sync = func(dir string) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		fsyncs++
		for _, e := range ents {
			durable[e.Name()] = true
		}
		return nil
	}
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				zone := fmt.Sprintf("w%d-%d.test", w, i)
				if _, err := s.CreateFile(zone, []byte("data\n")); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ok := durable[FileBase(zone)+".zone"]
				mu.Unlock()
				if !ok {
					t.Errorf("CreateFile(%s) returned before an fsync of the directory made its name durable", zone)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d files created by %d writers at once, %d fsyncs of the directory", writers*each, writers, fsyncs)
	if fsyncs >= writers*each {
		t.Errorf("%d fsyncs of the directory for %d files created by %d writers at once: one per create, none shared", fsyncs, writers*each, writers)
	}
}

// An fsync's failure is returned to every create it covered.
func TestCreateFileDirectoryFsyncFails(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.dirSync.sync = func(string) error { return os.ErrPermission }
	if _, err := s.CreateFile("a.test", []byte("data\n")); err == nil {
		t.Fatal("CreateFile succeeded although the directory's fsync failed")
	}
	s.dirSync.sync = nil
	if _, err := s.CreateFile("b.test", []byte("data\n")); err != nil {
		t.Fatalf("CreateFile after a working fsync: %v", err)
	}
}

// TestDirSyncRunningFailureReported: a create that arrives while an
// fsync runs (its link possibly written back by that fsync) is told of
// that fsync's failure even when the next one, which it waits for,
// succeeds: on a descriptor of its own it would have been.
func TestDirSyncRunningFailureReported(t *testing.T) {
	var d dirSyncer
	var calls atomic.Int32
	release := make(chan struct{})
	d.sync = func(string) error {
		if calls.Add(1) == 1 {
			<-release
			return errors.New("EIO")
		}
		return nil
	}
	errA := make(chan error)
	go func() { errA <- d.Sync("x") }()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	errB := make(chan error)
	go func() { errB <- d.Sync("x") }() // B linked before/while fsync 1 ran
	time.Sleep(20 * time.Millisecond)
	close(release)
	a, b := <-errA, <-errB
	t.Logf("A (fsync 1) got %v; B (arrived during fsync 1, covered by fsync 2) got %v", a, b)
	if b == nil {
		t.Errorf("B got nil although the fsync running when it linked failed")
	}
}
