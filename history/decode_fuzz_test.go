package history

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzScan feeds arbitrary bytes as a segment: scanning never fails or
// panics, stops at the first line that is not an entry, and what it
// keeps re-encodes to entries with their Seq.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"id":"1","time":"2026-01-01T00:00:00Z","zone":"a","type":"zone.created","source":"api"}` + "\n"))
	f.Add([]byte(`{"id":"2"}` + "\n" + `{"id":"`))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "s")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		end, err := scan(path, 0, func(e Entry, off int64) bool {
			if e.Seq == 0 || off > int64(len(data)) {
				t.Fatalf("entry %+v at %d", e, off)
			}
			return true
		})
		if err != nil || end > int64(len(data)) || (end > 0 && data[end-1] != '\n') {
			t.Fatalf("end %d err %v", end, err)
		}
	})
}
