package history

import "testing"

// TestBorn: a zone's current life begins at its latest creation or
// import, or at an adoption after its deletion (not at one without); it
// is known again after a restart, also when a rotation saved it in the
// state file and the segment holding it was dropped.
func TestBorn(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentSize: 1, MaxSize: 1} // a segment per write; only the active one kept
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	const z = "born.example"
	op := func(typ string) uint64 {
		t.Helper()
		es, err := l.Append(Entry{Zone: z, Type: typ, Source: SourceAPI})
		if err != nil {
			t.Fatal(err)
		}
		return es[0].Seq
	}
	if l.Born(z, "") != 0 {
		t.Fatal("born before any entry")
	}
	created := op(ZoneCreated)
	op(ZoneFrozen)
	if got := l.Born(z, ""); got != created {
		t.Fatalf("after create: %d, want %d", got, created)
	}
	op(ZoneAdopted) // adopting a zone that was not deleted: same life
	if got := l.Born(z, ""); got != created {
		t.Fatalf("after an adoption without deletion: %d, want %d", got, created)
	}
	op(ZoneDeleted)
	adopted := op(ZoneAdopted)
	if got := l.Born(z, ""); got != adopted {
		t.Fatalf("after deletion and adoption: %d, want %d", got, adopted)
	}
	op(ZoneDeleted)
	imported := op(ZoneImported)
	op(ZoneThawed)
	if got := l.Born(z, ""); got != imported || l.Born(z, "other-view") != 0 {
		t.Fatalf("after import: %d (view other: %d), want %d", got, l.Born(z, "other-view"), imported)
	}
	l.Close()
	l, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.First() <= imported {
		t.Fatalf("the retention kept entry %d: the state file is not what is read", imported)
	}
	if got := l.Born(z, ""); got != imported {
		t.Fatalf("after a restart: %d, want %d", got, imported)
	}
}
