package history

import (
	"fmt"
	"runtime"
	"testing"
)

// TestZoneStateHeap: what the Log keeps of each zone (its serial, the
// serial written, its life) costs one map slot and one key a zone
// (issue 27: 15 MB of Caddy's heap at 100,000 zones were the history's
// per-zone state, a map and a key string for each part). Measured as
// the heap of a Log after 20,000 creations of 20,000 zones, less that of
// a Log after as many creations of one zone (the same entries, the same
// tail): the per-zone state only. It was 180 bytes a zone before
// (three maps, three keys), 96 now.
func TestZoneStateHeap(t *testing.T) {
	const n = 20000
	heap := func(distinct bool) uint64 {
		l, err := Open(t.TempDir(), Options{MaxSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		serial := uint32(1)
		for i := 0; i < n; i += 500 {
			es := make([]Entry, 500)
			for j := range es {
				zone := fmt.Sprintf("z%06d.test", i+j)
				if !distinct {
					zone = fmt.Sprintf("z%06d.test", 0)
				}
				es[j] = Entry{Zone: zone, Type: ZoneCreated, Source: SourceAPI, SerialAfter: &serial}
			}
			if _, err := l.Append(es...); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		after := ms.HeapAlloc
		runtime.KeepAlive(l)
		return after - before
	}
	one := heap(false)
	many := heap(true)
	perZone := (float64(many) - float64(one)) / n
	t.Logf("%d zones: %d bytes of heap; one zone, as many entries: %d; %.0f bytes a zone", n, many, one, perZone)
	if perZone > 130 {
		t.Errorf("the history keeps %.0f bytes a zone, want at most 130 (one map slot and one key a zone)", perZone)
	}
}
