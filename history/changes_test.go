package history

import (
	"bytes"
	"encoding/json"
	"testing"
)

// change is a records.changed entry of zone from serial a to b.
func change(zone, source string, a, b uint32) Entry {
	return Entry{Zone: zone, Type: RecordsChanged, Source: source, SerialBefore: Serial(a), SerialAfter: Serial(b)}
}

// TestEnqueueChangesRecordsOnce: a change found both by the writer that
// made it and by the catch-up that read it from named's IXFR is recorded
// once, whichever enqueues first, also after a restart; entries that
// are new are all recorded, in order.
func TestEnqueueChangesRecordsOnce(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const z = "once.example"
	steps := []struct {
		es   []Entry
		kept int
	}{
		{[]Entry{change(z, SourceAPI, 1, 2)}, 1},
		// The API recorded 1->2 while the catch-up read the IXFR.
		{[]Entry{change(z, SourceExternal, 1, 2), change(z, SourceExternal, 2, 3)}, 1},
		// The catch-up recorded 3->4 first; two writes merged into the
		// message that made it come after.
		{[]Entry{change(z, SourceExternal, 3, 4)}, 1},
		{[]Entry{change(z, SourceAPI, 3, 4)}, 0},
		{[]Entry{change(z, SourceAPI, 3, 4)}, 0},
		// Merged writes of the API's own message: both kept.
		{[]Entry{change(z, SourceAPI, 4, 5), change(z, SourceAPI, 4, 5)}, 2},
		// The catch-up ran ahead by two changes; the API's entry of the
		// first comes late.
		{[]Entry{change(z, SourceExternal, 5, 6), change(z, SourceExternal, 6, 7)}, 2},
		{[]Entry{change(z, SourceAPI, 5, 6)}, 0},
		// A write that did not move the serial, and an entry without
		// serials, are recorded as given.
		{[]Entry{change(z, SourceAPI, 7, 7), {Zone: z, Type: ZoneFrozen, Source: SourceAPI}}, 2},
		// Another zone is not confused with this one.
		{[]Entry{change("other.example", SourceExternal, 1, 2), change("other.example", SourceAPI, 6, 7)}, 2},
	}
	want := 0
	for i, s := range steps {
		got, err := l.EnqueueChanges(s.es...).Wait()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != s.kept {
			t.Fatalf("step %d: %d of %d entries recorded, want %d", i, len(got), len(s.es), s.kept)
		}
		want += s.kept
	}
	// Plain Enqueue keeps its meaning: everything given is recorded.
	if got, err := l.Append(change(z, SourceAPI, 5, 6)); err != nil || len(got) != 1 {
		t.Fatalf("Append: %v %d", err, len(got))
	}
	want++
	es, err := l.Read(0, Filter{}, 0)
	if err != nil || len(es) != want {
		t.Fatalf("read %d entries (%v), want %d", len(es), err, want)
	}
	l.Close()

	// The latest external serials are known again after a restart.
	l, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got, _ := l.EnqueueChanges(change("other.example", SourceAPI, 1, 2)).Wait(); len(got) != 0 {
		t.Fatalf("after restart, the API's entry of a change recorded as external was recorded again: %+v", got)
	}
	// The zone is at 6 (the last Append): twenty external changes, more
	// than the Log remembers, all recorded; the API's entry of the newest
	// is not.
	for i := range 20 {
		if got, err := l.EnqueueChanges(change(z, SourceExternal, uint32(6+i), uint32(7+i))).Wait(); err != nil || len(got) != 1 {
			t.Fatalf("external change %d: %v, %d recorded", i, err, len(got))
		}
	}
	if got, _ := l.EnqueueChanges(change(z, SourceAPI, 25, 26)).Wait(); len(got) != 0 {
		t.Fatal("the newest external change was forgotten")
	}
}

// TestEntryJSON: an entry read back as recorded gives the line the Log
// wrote (no encoding of its own); changed in any way (a filter keeping
// some of its RRsets, a field set by the caller), it gives its new JSON.
func TestEntryJSON(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	e := rec("a.example", 1)
	e.Added = append(e.Added, RRset{Name: "x.a.example", Type: "TXT", TTL: 60, Records: []string{`"<&>"`}})
	if _, err := l.Append(e); err != nil {
		t.Fatal(err)
	}
	es, err := l.Read(0, Filter{}, 0)
	if err != nil || len(es) != 1 {
		t.Fatal(es, err)
	}
	got := es[0]
	want := func(e Entry) []byte {
		t.Helper()
		e = e.Recorded(nil)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b, err := got.JSON()
	if err != nil || !bytes.Equal(b, want(got)) {
		t.Fatalf("JSON %s, %v; want %s", b, err, want(got))
	}
	if rj := got.RecordedJSON(); rj == nil || &b[0] != &rj[0] {
		t.Fatal("the JSON of an entry as recorded was encoded again")
	}
	again, _ := got.JSON()
	if &again[0] != &b[0] {
		t.Fatal("a second JSON of the entry was encoded again")
	}
	only, ok := got.Only(func(r RRset) bool { return r.Type == "TXT" })
	if !ok {
		t.Fatal("Only dropped the TXT RRset")
	}
	changed := got
	changed.Identity = "someone-else"
	serial := got
	serial.SerialAfter = Serial(99)
	added := got
	added.Added = append([]RRset(nil), got.Added...)
	added.Added[0].TTL = 1
	for name, e := range map[string]Entry{"filtered": only, "identity": changed, "serial": serial, "added": added} {
		b, err := e.JSON()
		if err != nil || !bytes.Equal(b, want(e)) {
			t.Errorf("%s: JSON %s, %v; want %s", name, b, err, want(e))
		}
	}
}
