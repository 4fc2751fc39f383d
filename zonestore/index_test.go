package zonestore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

func zname(i int) string { return fmt.Sprintf("zone%05d.example", i) }

func TestIndexPutGetCountsAndPages(t *testing.T) {
	s, _ := openTemp(t)
	if _, ok, err := s.Get("a.example"); ok || err != nil {
		t.Fatalf("Get on empty index: %v %v", ok, err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 10 {
		typ := zonemodel.TypePrimary
		if i%3 == 0 {
			typ = zonemodel.TypeSecondary
		}
		if err := s.Put(Entry{Name: zname(9 - i), Type: typ, Created: created}); err != nil {
			t.Fatal(err)
		}
	}
	e, ok, err := s.Get(zname(0))
	if !ok || err != nil || e.Type != zonemodel.TypeSecondary || !e.Created.Equal(created) {
		t.Fatalf("Get = %+v %v %v", e, ok, err)
	}
	if c := s.Counts(); c[zonemodel.TypePrimary] != 6 || c[zonemodel.TypeSecondary] != 4 {
		t.Errorf("Counts = %v", c)
	}

	// Paging over everything.
	var names []string
	cursor := ""
	pages := 0
	for {
		es, next, total, err := s.List("", cursor, 3)
		if err != nil || total != 10 {
			t.Fatalf("List: total %d, %v", total, err)
		}
		for _, e := range es {
			names = append(names, e.Name)
		}
		pages++
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != 4 || len(names) != 10 {
		t.Fatalf("%d pages, %d names", pages, len(names))
	}
	for i, n := range names {
		if n != zname(i) {
			t.Errorf("names[%d] = %s", i, n)
		}
	}
	// An exact last page has no next cursor.
	if _, next, _, _ := s.List("", zname(4), 5); next != "" {
		t.Errorf("exact last page: next = %q", next)
	}
	// Type filter: secondaries are 9-i for i in {0,3,6,9} = 9,6,3,0.
	es, next, total, _ := s.List(zonemodel.TypeSecondary, "", 3)
	if total != 4 || len(es) != 3 || es[0].Name != zname(0) || es[2].Name != zname(6) || next != zname(6) {
		t.Errorf("typed page 1: %v next %q total %d", es, next, total)
	}
	es, next, _, _ = s.List(zonemodel.TypeSecondary, next, 3)
	if len(es) != 1 || es[0].Name != zname(9) || next != "" {
		t.Errorf("typed page 2: %v next %q", es, next)
	}
	if es, _, total, _ := s.List("stub", "", 10); len(es) != 0 || total != 0 {
		t.Errorf("unknown type: %v %d", es, total)
	}
	if es, _, _, _ := s.List("", "", 0); len(es) != 10 {
		t.Errorf("limit 0 gave %d entries", len(es))
	}

	// Replace changes the type; remove deletes; removing twice is fine.
	if err := s.Put(Entry{Name: zname(0), Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	if c := s.Counts(); c[zonemodel.TypePrimary] != 7 || c[zonemodel.TypeSecondary] != 3 {
		t.Errorf("Counts after replace = %v", c)
	}
	if e, _, _ := s.Get(zname(0)); e.Created.IsZero() {
		t.Error("zero Created not filled in")
	}
	for range 2 {
		if err := s.Remove(zname(1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := s.Get(zname(1)); ok {
		t.Error("removed entry still there")
	}
	if _, _, total, _ := s.List("", "", 1); total != 9 {
		t.Errorf("total after remove = %d", total)
	}
	if err := s.Put(Entry{Name: "../x", Type: zonemodel.TypePrimary}); err == nil {
		t.Error("Put accepted ../x")
	}
	if err := s.Put(Entry{Name: "x.example", Type: "a b"}); err == nil {
		t.Error("Put accepted type 'a b'")
	}

	// A fresh Store replays the log.
	s2, _ := Open(s.Dir())
	if es, _, total, _ := s2.List("", "", 0); total != 9 || len(es) != 9 {
		t.Errorf("replayed %d/%d entries", len(es), total)
	}
}

func TestIndexCrossInstance(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	if err := a.Put(Entry{Name: "one.example", Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := b.Get("one.example"); !ok {
		t.Fatal("b does not see a's put")
	}
	if err := b.Put(Entry{Name: "two.example", Type: zonemodel.TypeSecondary}); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove("one.example"); err != nil {
		t.Fatal(err)
	}
	es, _, total, _ := a.List("", "", 0)
	if total != 1 || es[0].Name != "two.example" {
		t.Fatalf("a sees %v", es)
	}

	// Concurrent writers through both instances; nothing is lost.
	var wg sync.WaitGroup
	for w, s := range []*Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := s.Put(Entry{Name: zname(w*100 + i), Type: zonemodel.TypePrimary}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, s := range []*Store{a, b} {
		if _, _, total, _ := s.List(zonemodel.TypePrimary, "", 1); total != 200 {
			t.Errorf("total primaries = %d, want 200", total)
		}
	}
}

func TestIndexCompaction(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	a.idx.compactMin = 10
	for i := range 20 {
		a.Put(Entry{Name: zname(i), Type: zonemodel.TypePrimary})
	}
	if _, ok, _ := b.Get(zname(3)); !ok { // b has read the old log
		t.Fatal("b misses an entry")
	}
	logPath := filepath.Join(dir, ".zoneapi", "index.log")
	before, _ := os.Stat(logPath)
	for i := range 15 {
		if err := a.Remove(zname(i)); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := os.Stat(logPath)
	if os.SameFile(before, after) {
		t.Fatal("log was not compacted")
	}
	data, _ := os.ReadFile(logPath)
	lines := strings.Count(string(data), "\n")
	if lines > 2*5+1 {
		t.Errorf("compacted log has %d lines for 5 live entries", lines)
	}
	// b notices the replacement and sees the same state.
	es, _, total, err := b.List("", "", 0)
	if err != nil || total != 5 || es[0].Name != zname(15) {
		t.Errorf("b after compaction: %v %d %v", es, total, err)
	}
	if err := b.Put(Entry{Name: "late.example", Type: zonemodel.TypeSecondary}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Get("late.example"); !ok {
		t.Error("a misses b's put after compaction")
	}
}

func TestIndexTornLine(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	a.Put(Entry{Name: "one.example", Type: zonemodel.TypePrimary})
	logPath := filepath.Join(dir, ".zoneapi", "index.log")
	// A crash in the middle of an append, and a garbage line.
	f, _ := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("not json\n{\"op\":\"put\",\"name\":\"torn.exa")
	f.Close()

	b, _ := Open(dir)
	es, _, total, err := b.List("", "", 0)
	if err != nil || total != 1 || es[0].Name != "one.example" {
		t.Fatalf("after torn line: %v %d %v", es, total, err)
	}
	// The next append must not be glued to the torn fragment.
	if err := b.Put(Entry{Name: "two.example", Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if _, ok, _ := s.Get("two.example"); !ok {
			t.Error("put after torn line lost")
		}
		if _, ok, _ := s.Get("torn.exa"); ok {
			t.Error("torn entry visible")
		}
	}
	c, _ := Open(dir)
	if _, _, total, _ := c.List("", "", 0); total != 2 {
		t.Errorf("replay after torn line: total %d", total)
	}
}

func TestSortedSet(t *testing.T) {
	var s sortedSet
	for i := 999; i >= 0; i-- {
		s.insert(zname(i * 7 % 1000))
	}
	s.insert(zname(5)) // duplicate
	if s.n != 1000 {
		t.Fatalf("n = %d", s.n)
	}
	for i := 0; i < 1000; i += 2 {
		s.remove(zname(i))
	}
	s.remove("absent")
	var got []string
	s.ascend("", func(n string) bool { got = append(got, n); return true })
	if len(got) != 500 || s.n != 500 {
		t.Fatalf("len %d n %d", len(got), s.n)
	}
	for i, n := range got {
		if n != zname(2*i+1) {
			t.Fatalf("got[%d] = %s", i, n)
		}
	}
	got = got[:0]
	s.ascend(zname(500), func(n string) bool { got = append(got, n); return len(got) < 2 })
	if len(got) != 2 || got[0] != zname(501) || got[1] != zname(503) {
		t.Errorf("ascend from middle: %v", got)
	}
}

// benchSizes are the index sizes whose per-operation costs must match.
var benchSizes = []int{100, 1000, 10000}

func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	es := make([]Entry, n)
	now := time.Now()
	for i := range es {
		typ := zonemodel.TypePrimary
		if i%10 == 0 {
			typ = zonemodel.TypeSecondary
		}
		es[i] = Entry{Name: zname(i), Type: typ, Created: now}
	}
	if err := s.putMany(es); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkIndexPut replaces existing entries, so the live set keeps its
// size; the cost includes the fsync and the amortised compactions.
func BenchmarkIndexPut(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if err := s.Put(Entry{Name: zname(i * 7919 % n), Type: zonemodel.TypePrimary}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndexGet(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok, err := s.Get(zname(i * 7919 % n)); !ok || err != nil {
					b.Fatal("missing", err)
				}
			}
		})
	}
}

// BenchmarkIndexListPage reads a 50-entry page at a random cursor, all types
// and secondaries only (a tenth of the entries).
func BenchmarkIndexListPage(b *testing.B) {
	for _, typ := range []string{"", zonemodel.TypeSecondary} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("type=%s/n=%d", typ, n), func(b *testing.B) {
				s := benchStore(b, n)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					cursor := zname(i * 7919 % (n - n/5)) // leaves a full page after it
					es, _, _, err := s.List(typ, cursor, 50)
					if err != nil || len(es) == 0 {
						b.Fatal("empty page", err)
					}
				}
			})
		}
	}
}

// An entry's File (an adopted zone's file elsewhere) survives a replay
// of the log by another instance and a compaction.
func TestIndexEntryFile(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	a.idx.compactMin = 4
	if err := a.Put(Entry{Name: "adopted.example", Type: zonemodel.TypePrimary, File: "/etc/bind/db.adopted"}); err != nil {
		t.Fatal(err)
	}
	b, _ := Open(dir)
	if e, ok, _ := b.Get("adopted.example"); !ok || e.File != "/etc/bind/db.adopted" {
		t.Fatalf("replayed entry %+v, %v", e, ok)
	}
	for i := range 10 {
		a.Put(Entry{Name: zname(i), Type: zonemodel.TypePrimary})
		a.Remove(zname(i))
	}
	c, _ := Open(dir)
	if e, ok, _ := c.Get("adopted.example"); !ok || e.File != "/etc/bind/db.adopted" {
		t.Fatalf("entry after compaction %+v, %v", e, ok)
	}
}

// TestIndexTouchReportedToOtherInstance: a zone touched by one instance
// (its state in named changed, its entry did not) is reported by the
// other's ChangesSince as Touched (not by its own), the entry unchanged,
// without an fsync.
// Before, a freeze or reload through one process left no trace another
// could follow (there was no Touch).
func TestIndexTouchReportedToOtherInstance(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	if err := a.Put(Entry{Name: "touch.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	// Many zones: what a reader reads after a touch is the touch's line,
	// not O(zones).
	var many []Entry
	for i := range 5000 {
		many = append(many, Entry{Name: fmt.Sprintf("z%d.touch.test", i), Type: "primary"})
	}
	if err := a.putMany(many); err != nil {
		t.Fatal(err)
	}
	_, seq, _, err := b.ChangesSince(0)
	if err != nil {
		t.Fatal(err)
	}
	flushes := a.idx.flushes
	// The touch under the zone's lock, as the zone service touches it
	// (the lock forgets the Put before it: see TestTouchAfterOwnRecord).
	unlock, err := a.Lock(context.Background(), "touch.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Touch("touch.test"); err != nil {
		t.Fatal(err)
	}
	unlock()
	if a.idx.flushes != flushes {
		t.Errorf("a touch alone was fsynced")
	}
	off := b.idx.off
	changes, _, ok, err := b.ChangesSince(seq)
	t.Logf("b read %d bytes of the log for one touch among %d zones", b.idx.off-off, len(many)+1)
	if read := b.idx.off - off; read > 100 {
		t.Errorf("b read %d bytes of the log for one touch among %d zones, want the touch's line only", read, len(many)+1)
	}
	if err != nil || !ok || len(changes) != 1 || !changes[0].Touched || changes[0].Deleted || changes[0].Entry.Name != "touch.test" {
		t.Fatalf("b's changes after a's touch: %+v ok %v err %v, want touch.test touched", changes, ok, err)
	}
	if changes, _, _, _ := a.ChangesSince(seq); len(changes) != 0 {
		t.Errorf("a's own touch reported to a: %+v", changes)
	}
	if e, found, err := b.Get("touch.test"); err != nil || !found || e.Type != "primary" {
		t.Errorf("b's entry after the touch: %+v %v %v", e, found, err)
	}
	if err := a.Touch("bad name!"); err == nil {
		t.Errorf("touching an invalid name: no error")
	}
}

// BenchmarkTouchBesidePut: what a zone's lock released adds to an
// operation (a touch: one line appended under the index lock, not
// fsynced) beside an index Put (one line, fsynced), measured in the same
// run; touch/put is the ratio of their times.
func BenchmarkTouchBesidePut(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	timeOf := func(f func(i int) error) time.Duration {
		start := time.Now()
		for i := range b.N {
			if err := f(i); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	put := timeOf(func(i int) error { return s.Put(Entry{Name: fmt.Sprintf("z%d.bench.test", i), Type: "primary"}) })
	touch := timeOf(func(i int) error { return s.Touch(fmt.Sprintf("z%d.bench.test", i)) })
	b.ReportMetric(float64(put.Nanoseconds())/float64(b.N), "put-ns/op")
	b.ReportMetric(float64(touch.Nanoseconds())/float64(b.N), "touch-ns/op")
	b.ReportMetric(float64(touch)/float64(put), "touch/put")
}

// TestTouchAfterOwnRecord: a touch after a record of the zone the same
// instance wrote since the zone's lock was taken (a create's or delete's
// entry or intent) writes nothing, since that record tells the others
// already; under a lock taken afterwards the touch is written again.
// Before, a create wrote an entry and then a touch line for the same zone,
// one log line more per create and delete.
func TestTouchAfterOwnRecord(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	ctx := context.Background()
	lines := func() int {
		b, err := os.ReadFile(a.idx.logPath)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte{'\n'})
	}
	unlock, err := a.Lock(ctx, "own.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Put(Entry{Name: "own.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	n := lines()
	if err := a.Touch("own.test"); err != nil {
		t.Fatal(err)
	}
	unlock()
	if got := lines(); got != n {
		t.Errorf("touch after the instance's own Put under the lock: %d log lines, want %d", got, n)
	}
	unlock, err = a.Lock(ctx, "own.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Touch("own.test"); err != nil {
		t.Fatal(err)
	}
	unlock()
	if got := lines(); got != n+1 {
		t.Errorf("touch under a new lock (a freeze): %d log lines, want %d", got, n+1)
	}
}
