package history

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func rec(zone string, i int) Entry {
	return Entry{Zone: zone, Type: RecordsChanged, Source: SourceAPI, Identity: "admin", Frontend: "rest",
		SerialBefore: Serial(uint32(i)), SerialAfter: Serial(uint32(i + 1)),
		Added: []RRset{{Name: fmt.Sprintf("r%d.%s.", i, zone), Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}}}
}

func TestAppendReadReopen(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		z := "a.example"
		if i%2 == 1 {
			z = "b.example"
		}
		got, err := l.Append(rec(z, i))
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Seq != uint64(i+1) || got[0].ID != fmt.Sprint(i+1) || got[0].Time.IsZero() {
			t.Fatalf("append %d: %+v", i, got[0])
		}
	}
	check := func(l *Log) {
		t.Helper()
		if l.Last() != 10 || l.First() != 1 {
			t.Fatalf("last %d first %d", l.Last(), l.First())
		}
		es, err := l.Read(3, Filter{Zone: "B.example."}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2 || es[0].Seq != 4 || es[1].Seq != 6 {
			t.Fatalf("read: %+v", es)
		}
		es, _ = l.Read(0, Filter{Name: "r4.a.example", Type: "a"}, 0)
		if len(es) != 1 || es[0].Seq != 5 {
			t.Fatalf("name filter: %+v", es)
		}
		es, _ = l.Read(0, Filter{Types: []string{ZoneCreated}}, 0)
		if len(es) != 0 {
			t.Fatalf("types filter: %+v", es)
		}
	}
	check(l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(rec("a.example", 0)); err != ErrClosed {
		t.Fatalf("append after close: %v", err)
	}
	l, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check(l)
	got, err := l.Append(rec("a.example", 10))
	if err != nil || got[0].Seq != 11 {
		t.Fatalf("after reopen: %v %+v", err, got)
	}
}

// TestTornTailRepaired: what a crash during a write leaves (a partial
// last line, or garbage) is cut at Open; the next entry follows the last
// good one and the sequence goes on.
func TestTornTailRepaired(t *testing.T) {
	for _, tail := range []string{`{"id":"4","time":"2026`, "\x00\x00\x00\x00", "{}\n", `{"id":"x"}` + "\n"} {
		dir := t.TempDir()
		l, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := l.Append(rec("a.example", i)); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		seg := filepath.Join(dir, fmt.Sprintf("%020d.jsonl", 1))
		f, _ := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString(tail)
		f.Close()
		l, err = Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Append(rec("a.example", 3))
		if err != nil || got[0].Seq != 4 {
			t.Fatalf("%q: %v %+v", tail, err, got)
		}
		l.Close()
		l, _ = Open(dir, Options{})
		es, _ := l.Read(0, Filter{}, 0)
		l.Close()
		if len(es) != 4 || es[3].Seq != 4 {
			t.Fatalf("%q: after repair: %d entries", tail, len(es))
		}
	}
}

// TestConcurrentAppendsOneOrder: concurrent appends all land, each Seq
// once, in file order, and many share an fsync.
func TestConcurrentAppendsOneOrder(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{SegmentSize: 4 << 10, MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	seen := make([]uint64, 0, 800)
	var mu sync.Mutex
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				got, err := l.Append(rec(fmt.Sprintf("z%d.example", g), i))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen = append(seen, got[0].Seq)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	l.Close()
	l, err = Open(dir, Options{SegmentSize: 4 << 10, MaxSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var all []Entry
	for after := uint64(0); ; {
		es, err := l.Read(after, Filter{}, 77)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		all = append(all, es...)
		after = es[len(es)-1].Seq
	}
	if len(all) != 800 || len(seen) != 800 {
		t.Fatalf("%d entries read, %d appended", len(all), len(seen))
	}
	for i, e := range all {
		if e.Seq != uint64(i+1) {
			t.Fatalf("entry %d has seq %d", i, e.Seq)
		}
	}
	if _, n := l.Size(); n < 3 {
		t.Fatalf("%d segments: no rotation", n)
	}
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	l, err := Open(dir, Options{MaxSize: 20 << 10, SegmentSize: 2 << 10, MaxAge: time.Hour, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := l.Append(rec("a.example", i)); err != nil {
			t.Fatal(err)
		}
	}
	size, _ := l.Size()
	if size > 20<<10 || l.First() == 1 || l.Last() != 300 {
		t.Fatalf("size %d first %d last %d", size, l.First(), l.Last())
	}
	es, _ := l.Read(0, Filter{}, 0)
	if len(es) == 0 || es[0].Seq != l.First() || es[len(es)-1].Seq != 300 {
		t.Fatalf("read after size retention: %d entries from %d", len(es), es[0].Seq)
	}
	// Age: everything is older than an hour; the sequence survives.
	now = now.Add(2 * time.Hour)
	l.SetRetention(time.Hour, 20<<10)
	if l.First() != 301 || l.Last() != 300 {
		t.Fatalf("after age retention: first %d last %d", l.First(), l.Last())
	}
	l.Close()
	l, err = Open(dir, Options{MaxSize: 20 << 10, MaxAge: time.Hour, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if s, ok := l.LastSerial("A.example.", ""); !ok || s != 300 {
		t.Fatalf("zone's last serial after retention and restart: %d %v", s, ok)
	}
	got, err := l.Append(rec("a.example", 0))
	if err != nil || got[0].Seq != 301 {
		t.Fatalf("after restart: %v %+v", err, got)
	}
	l.Append(Entry{Zone: "a.example", Type: ZoneDeleted, Source: SourceAPI})
	if _, ok := l.LastSerial("a.example", ""); ok {
		t.Fatal("deleted zone keeps a serial")
	}
}

func TestChangedWakes(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := l.Changed()
	select {
	case <-ch:
		t.Fatal("closed before any append")
	default:
	}
	go l.Append(rec("a.example", 0))
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("not woken")
	}
	if l.Last() != 1 {
		t.Fatalf("woken before the entry is durable: last %d", l.Last())
	}
}

// BenchmarkAppend is one durable append at a time (c=1: one fsync each).
func BenchmarkAppend(b *testing.B) {
	l, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := rec("a.example", 1)
	b.ResetTimer()
	for range b.N {
		if _, err := l.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendParallel is 8 appenders at once (group commit).
func BenchmarkAppendParallel(b *testing.B) {
	l, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := rec("a.example", 1)
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := l.Append(e); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestHoldKeepsEntriesTogether checks that nothing enqueued under a Hold
// is written before its release, and that it is written then.
func TestHoldKeepsEntriesTogether(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	release := l.Hold()
	p1 := l.Enqueue(Entry{Zone: "example.com", Type: RecordsChanged, Source: SourceAPI})
	l.flush(false) // as the writer would at the Enqueue's kick
	l.mu.Lock()
	durable := l.durable
	l.mu.Unlock()
	if durable != 0 {
		t.Fatalf("an entry enqueued under a Hold was written before its release (durable %d)", durable)
	}
	p2 := l.Enqueue(Entry{Zone: "example.com", Type: RecordsChanged, Source: SourceAPI})
	release()
	release() // a second call does nothing
	for _, p := range []*Pending{p1, p2} {
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := l.Read(0, Filter{}, 10); err != nil || len(got) != 2 {
		t.Fatalf("after the release: %d entries, %v; want 2", len(got), err)
	}
}

// TestSyncWaitsForTheDelay: without SyncEach, the writes of SyncDelay
// share one fsync made after it (none before), and Close fsyncs what is
// left.
func TestSyncWaitsForTheDelay(t *testing.T) {
	l, err := Open(t.TempDir(), Options{SyncDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := l.Append(rec("a.example", i)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	if n := l.Syncs(); n != 0 {
		t.Fatalf("%d fsyncs within the delay, want 0", n)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// The delay is long enough for 5 appends (each waits for its write)
	// on a loaded machine; appends slower than that may take two fsyncs.
	const delay = 2 * time.Second
	l, err = Open(t.TempDir(), Options{SyncDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	for i := range 5 {
		if _, err := l.Append(rec("a.example", i)); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took >= delay {
		t.Skipf("5 appends took %v, longer than the delay", took)
	}
	for deadline := time.Now().Add(10 * time.Second); l.Syncs() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no fsync after the delay")
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := l.Syncs(); n != 1 {
		t.Fatalf("%d fsyncs for 5 appends within the delay, want 1", n)
	}
}

// TestSeqsSkipAfterAReboot: a Log left open by an earlier boot of the
// machine (an operating-system crash: its last entries may be lost, their
// Seqs seen already) gives Seqs rebootGap higher, also after a clean
// restart; a Log closed, or left open by a crash of the process alone,
// goes on with the next Seq.
func TestSeqsSkipAfterAReboot(t *testing.T) {
	dir := t.TempDir()
	boot := filepath.Join(t.TempDir(), "boot_id")
	if err := os.WriteFile(boot, []byte("boot-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendOne := func(want uint64) {
		t.Helper()
		l, err := Open(dir, Options{bootIDFile: boot})
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Append(rec("a.example", int(want)))
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Seq != want {
			t.Fatalf("Seq %d, want %d", got[0].Seq, want)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	appendOne(1)
	appendOne(2) // closed: the next Seq
	// Left open by this boot (the process was killed): the next Seq.
	if err := os.WriteFile(filepath.Join(dir, runningFile), []byte("boot-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendOne(3)
	// Left open by another boot: rebootGap higher.
	if err := os.WriteFile(filepath.Join(dir, runningFile), []byte("boot-0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendOne(4 + rebootGap)
	appendOne(5 + rebootGap)
	l, err := Open(dir, Options{bootIDFile: boot})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.Read(0, Filter{}, 0)
	if err != nil || len(es) != 5 || es[3].Seq != 4+rebootGap || l.Last() != 5+rebootGap {
		t.Fatalf("read %d entries, %v; last %d", len(es), err, l.Last())
	}
	if es, _ := l.Read(3, Filter{}, 0); len(es) != 2 || es[0].Seq != 4+rebootGap {
		t.Fatalf("read after 3: %+v", es)
	}
}

// TestReleaseWrites: the last release of a Hold writes the pending
// entries itself, before it returns (no hand-off to the writer
// goroutine), so that a Wait after it finds them written.
func TestReleaseWrites(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 50 {
		release := l.Hold()
		p := l.Enqueue(Entry{Zone: "example.com", Type: RecordsChanged, Source: SourceAPI})
		release()
		if got := l.Last(); got != p.entries[0].Seq {
			t.Fatalf("append %d: Last() is %d right after the release; want %d (written by the release)", i, got, p.entries[0].Seq)
		}
		select {
		case <-p.b.done:
		default:
			t.Fatalf("append %d: the batch is not done after the release", i)
		}
	}
}

// TestTimeOutOfRangeRefused: an entry whose time JSON cannot write (a
// year outside 0-9999) is refused with an error naming it, uses no Seq,
// and leaves no empty batch behind: Close, a Hold's release and the next
// appends go on (an empty batch made flush index its entries and panic).
func TestTimeOutOfRangeRefused(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range []int{10000, -1} {
		e := rec("a.example", 1)
		e.Time = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		if _, err := l.Append(e); err == nil || !strings.Contains(err.Error(), "a.example") || !strings.Contains(err.Error(), "year") {
			t.Fatalf("year %d: %v", y, err)
		}
		release := l.Hold()
		p := l.Enqueue(e)
		release()
		if _, err := p.Wait(); err == nil {
			t.Fatalf("held, year %d: recorded", y)
		}
	}
	got, err := l.Append(rec("a.example", 2))
	if err != nil || got[0].Seq != 1 {
		t.Fatalf("next append: %v %+v", err, got)
	}
	e := rec("a.example", 3)
	e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	l.Enqueue(e) // the last before Close
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKeptEntriesPinOnlyTheirLines: the entries the Log keeps (its tail)
// hold the JSON lines they were written as; an entry enqueued with
// thousands of others keeps its own line alive, not the batch's buffer
// of all their lines. The heap retained per kept entry after one append
// of 10,000 entries is at most what it is after 10,000 appends of one
// (each entry's line its own array there). Before, the tail's 4,096
// entries kept the one append's 5 MB buffer: some 1,750 bytes each
// against some 1,100.
func TestKeptEntriesPinOnlyTheirLines(t *testing.T) {
	const n = 10_000
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	perKept := func(together bool) float64 {
		l, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		before := heap()
		if together {
			es := make([]Entry, n)
			for i := range es {
				es[i] = rec("a.example", i)
			}
			if _, err := l.Append(es...); err != nil {
				t.Fatal(err)
			}
		} else {
			for i := range n {
				if _, err := l.Append(rec("a.example", i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		retained := heap() - before
		l.mu.Lock()
		kept, lines := len(l.tail), 0
		for _, e := range l.tail {
			lines += len(e.RecordedJSON())
		}
		l.mu.Unlock()
		t.Logf("%s: %d entries kept, lines of %d bytes: %d bytes retained, %.0f per entry", map[bool]string{true: "one append", false: "one append each"}[together], kept, lines, retained, float64(retained)/float64(kept))
		return float64(retained) / float64(kept)
	}
	together, apart := perKept(true), perKept(false)
	if together > apart {
		t.Errorf("an entry kept of one append of %d retains %.0f bytes, of an append of its own %.0f", n, together, apart)
	}
}
