package zonestore

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestIndexHeap: the index's memory of 50,000 zones created through the
// API (an index log as creates leave it: a put line each, with its type,
// creation time and the create's 32-digit fingerprint), read by a Store
// at its start, costs at most 210 bytes a zone (issue 27: the index was
// some 19 MB of Caddy's heap at 100,000 zones): 183 now, 258 when each
// zone kept a whole Entry (its name again, its own copy of the type and
// of the fingerprint's text). The entries read back are the same.
func TestIndexHeap(t *testing.T) {
	const n = 50000
	dir := t.TempDir()
	meta := filepath.Join(dir, metaDir)
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(meta, "index.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	created := time.Date(2026, 11, 27, 19, 0, 0, 123456789, time.UTC)
	fp := func(i int) string {
		sum := sha256.Sum256(fmt.Append(nil, i))
		return hex.EncodeToString(sum[:16])
	}
	for i := range n {
		r := logRecord{Op: "put", Name: fmt.Sprintf("s%06d.scale", i), Type: "primary", Created: created.Add(time.Duration(i)), FP: fp(i)}
		if i == 7 {
			r.FP += ".key1" // a keyed create's
		}
		if i == 8 {
			r.File = "s000008.scale.db"
		}
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Known("s000000.scale") {
		t.Fatal("the index does not know s000000.scale")
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	perZone := (float64(ms.HeapAlloc) - float64(before)) / n
	runtime.KeepAlive(s)
	t.Logf("%d zones: %.0f bytes of heap a zone", n, perZone)
	if perZone > 210 {
		t.Errorf("the index keeps %.0f bytes a zone, want at most 210", perZone)
	}

	for _, i := range []int{0, 7, 8, n - 1} {
		name := fmt.Sprintf("s%06d.scale", i)
		e, ok, err := s.Get(name)
		want := Entry{Name: name, Type: "primary", Created: created.Add(time.Duration(i)), Fingerprint: fp(i)}
		if i == 7 {
			want.Fingerprint += ".key1"
		}
		if i == 8 {
			want.File = "s000008.scale.db"
		}
		if err != nil || !ok || e != want {
			t.Errorf("Get(%s) = %+v, %v, %v; want %+v", name, e, ok, err, want)
		}
	}
	page, _, total, err := s.List("primary", "s049997.scale", 10)
	if err != nil || total != n || len(page) != 2 || page[1].Fingerprint != fp(n-1) || page[1].Created != created.Add(n-1) {
		t.Errorf("List: %+v, total %d, %v", page, total, err)
	}
}
