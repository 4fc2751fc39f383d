package zonestore

import (
	"fmt"
	"sync"
	"testing"
)

// Concurrent writers share fsyncs: records queued while one flush
// fsyncs are appended and fsynced together by the next, each writer
// returning once its own are durable; every record is applied once.
func TestGroupCommit(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				name := fmt.Sprintf("w%02d-%02d.test", w, i)
				if err := s.Put(Entry{Name: name, Type: "primary"}); err != nil {
					t.Error(err)
					return
				}
				if _, ok, err := s.Get(name); !ok || err != nil {
					t.Errorf("%s not indexed after its Put: %v", name, err)
				}
			}
		}()
	}
	wg.Wait()
	_, _, total, err := s.List("", "", 0)
	if err != nil || total != writers*each {
		t.Fatalf("%d zones indexed, want %d: %v", total, writers*each, err)
	}
	s.idx.mu.Lock()
	flushes := s.idx.flushes
	s.idx.mu.Unlock()
	t.Logf("%d records in %d fsyncs", writers*each, flushes)
	if flushes >= writers*each {
		t.Errorf("%d fsyncs for %d records written by %d writers at once: no group commit", flushes, writers*each, writers)
	}
	// Read back from the file by a new store: every record, once.
	s2, err := Open(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, total, _ := s2.List("", "", 0); total != writers*each {
		t.Errorf("the log holds %d zones, want %d", total, writers*each)
	}
}
