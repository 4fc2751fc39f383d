package history

import "testing"

// TestZoneKeyKept: the zone key an entry's lookups need (its serial, its
// life, its serial written) is built once for a burst of one zone's
// changes, not at each lookup; another zone's key is built again, and
// the lookups find each zone's own state.
func TestZoneKeyKept(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(Entry{Zone: "Example.COM.", Type: RecordsChanged, Source: SourceAPI, SerialBefore: Serial(1), SerialAfter: Serial(2)},
		Entry{Zone: "other.example", View: "internal", Type: RecordsChanged, Source: SourceAPI, SerialBefore: Serial(7), SerialAfter: Serial(8)}); err != nil {
		t.Fatal(err)
	}
	if s, ok := l.LastSerial("example.com", ""); !ok || s != 2 {
		t.Fatalf("example.com: serial %d, %v", s, ok)
	}
	if n := testing.AllocsPerRun(100, func() { l.LastSerial("example.com", "") }); n != 0 {
		t.Errorf("LastSerial of the zone looked up last allocates %v times", n)
	}
	if s, ok := l.LastSerial("other.example.", "internal"); !ok || s != 8 {
		t.Fatalf("other.example in internal: serial %d, %v", s, ok)
	}
	if s, ok := l.LastSerial("other.example", ""); ok {
		t.Fatalf("other.example in the default view: serial %d", s)
	}
	if s, ok := l.LastSerial("Example.COM.", ""); !ok || s != 2 {
		t.Fatalf("Example.COM.: serial %d, %v", s, ok)
	}
}
