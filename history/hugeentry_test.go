package history

import (
	"fmt"
	"strings"
	"testing"
)

// TestHugeEntryStaysReadable: an entry whose JSON line would be longer
// than Read and Open read back (maxLine) is written without its records'
// data (its RRsets' names and types kept, as for an RRset deleted whose
// data is not known), so the entries around it, the history's reads and
// its reopening are not affected. Before the fix the line was written
// whole: Read and Open then stopped at it with "bufio: buffer full", so
// after a restart the history (and the zone API's backend with it) could
// not be opened at all. A client with the records action alone can make
// such a change: ~180 TXT RRsets of 64,000 '<' each (each added by one
// request, JSON writes '<' as \u003c) removed by one batch is one entry
// of ~69 MB.
func TestHugeEntryStaysReadable(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := Entry{Zone: "a.test", Type: RecordsChanged, Source: SourceAPI}
	txt := strings.Repeat("<", 64000)
	var sets []RRset
	for i := 0; i < 180; i++ {
		sets = append(sets, RRset{Name: "_acme-challenge.n" + strings.Repeat("x", i%50) + ".a.test", Type: "TXT", TTL: 60, Records: []string{txt}})
	}
	huge := Entry{Zone: "a.test", Type: RecordsChanged, Source: SourceAPI, Removed: sets}
	if b, _ := huge.AppendJSON(nil); len(b) < maxLine {
		t.Fatalf("the test's entry is %d bytes of JSON, not over %d", len(b), maxLine)
	}
	for _, e := range []Entry{small, huge, small} {
		if _, err := l.Append(e); err != nil {
			t.Fatalf("append: %v", err)
		}
	}
	if len(sets[0].Records) != 1 {
		t.Fatal("Append changed the caller's RRsets")
	}
	check := func(when string, l *Log) {
		t.Helper()
		es, err := l.Read(0, Filter{}, 10)
		if err != nil || len(es) != 3 {
			t.Fatalf("%s: read %d entries, %v; want 3", when, len(es), err)
		}
		got := es[1]
		if len(got.Removed) != len(sets) || got.Removed[0].Name != sets[0].Name || got.Removed[0].Type != "TXT" || len(got.Removed[0].Records) != 0 {
			first := ""
			if len(got.Removed) > 0 {
				first = fmt.Sprintf("%s %s with %d records", got.Removed[0].Name, got.Removed[0].Type, len(got.Removed[0].Records))
			}
			t.Errorf("%s: the huge entry reads back with %d RRsets (first: %s), want %d without their data", when, len(got.Removed), first, len(sets))
		}
	}
	check("before reopening", l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopening the history: %v", err)
	}
	defer l.Close()
	check("after reopening", l)
}
