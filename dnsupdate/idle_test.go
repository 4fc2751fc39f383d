package dnsupdate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// fakeUpdater serves zones of hostingZone on a fake named (dnstest) and
// returns an Updater for it.
func fakeUpdater(tb testing.TB, zones ...string) (*dnstest.Server, *Updater) {
	tb.Helper()
	files := make(map[string]string, len(zones))
	for _, z := range zones {
		var sb strings.Builder
		for _, rr := range hostingZone(z, 1) {
			sb.WriteString(rr.String() + "\n")
		}
		files[z] = sb.String()
	}
	d := dnstest.NewServer(tb, files)
	c, err := NewClient(d.Addr, &TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	u := NewUpdater(c)
	tb.Cleanup(u.Close)
	return d, u
}

// addA adds an A record at name, asking again when the fake closed the
// connection (miekg/dns closes a TCP connection after 128 queries; named
// does not).
func addA(u *Updater, zone, name string, i int) (*ChangeResult, error) {
	r := zonemodel.Record{Name: name, Type: "A", Value: fmt.Sprintf("192.0.2.%d", i%250+1)}
	res, err := u.Add(context.Background(), zone, r, WriteOptions{})
	for try := 0; err != nil && try < 3 && !IsRcode(err, dns.RcodeNXRrset); try++ {
		res, err = u.Add(context.Background(), zone, r, WriteOptions{})
	}
	return res, err
}

func writerCount(u *Updater) int {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	return len(u.writers)
}

// waitWriters waits until the Updater holds n writers.
func waitWriters(t *testing.T, u *Updater, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for writerCount(u) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d zone writers after %v idle, want %d", writerCount(u), u.idleFor(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestIdleWritersFreed writes once to each of 20 zones: every writer is
// freed once idle, with the records its model counted, and a write after
// the free starts from the SOA the freed writer had set: the cached
// snapshot read before the first write is older, and is dropped rather
// than seeding the new writer (the fake does not check an UPDATE's
// prerequisites, so a message pinned to that older SOA would set an
// older serial again).
func TestIdleWritersFreed(t *testing.T) {
	var zones []string
	for i := range 20 {
		zones = append(zones, fmt.Sprintf("idle%d.example", i))
	}
	d, u := fakeUpdater(t, zones...)
	u.idleAfter = 100 * time.Millisecond
	if _, err := u.Snapshot(context.Background(), zones[0]); err != nil {
		t.Fatal(err)
	}
	for i, z := range zones {
		if _, err := addA(u, z, "w", i); err != nil {
			t.Fatal(err)
		}
	}
	if n := writerCount(u); n == 0 {
		t.Fatal("no writer after the writes")
	}
	waitWriters(t, u, 0)
	if k := u.known.Load(); k != 0 {
		t.Errorf("the freed writers' models still count %d records", k)
	}
	res, err := addA(u, zones[0], "again", 1)
	if err != nil {
		t.Fatal(err)
	}
	served := d.Records(zones[0])[0].(*dns.SOA).Serial
	if !res.HasOldSerial || res.OldSerial != 2 || res.Serial != 3 || served != 3 {
		t.Fatalf("the write after the free: serial %d -> %d, named serves %d; want 2 -> 3", res.OldSerial, res.Serial, served)
	}
}

// TestIdleFreeRacesWrites writes to two zones from 8 goroutines with
// pauses about as long as the idle time, so that writers are freed while
// writes take them: the UPDATEs of a zone stay one at a time (never two
// writers of one zone taking writes), and every write lands. A write
// pauses now and then between finding its zone's writer and queueing on
// it, the window where the writer it found may be freed.
func TestIdleFreeRacesWrites(t *testing.T) {
	zones := []string{"race0.example", "race1.example"}
	d, u := fakeUpdater(t, zones...)
	u.idleAfter = time.Millisecond
	var mu sync.Mutex
	inflight := map[string]int{}
	overlap := 0
	u.beforeSend = func(m *dns.Msg) {
		z := strings.TrimSuffix(m.Question[0].Name, ".")
		mu.Lock()
		inflight[z]++
		if inflight[z] > 1 {
			overlap++
		}
		mu.Unlock()
		time.Sleep(200 * time.Microsecond) // in flight a while
	}
	var gap atomic.Int64
	u.beforeEnqueue = func() {
		if gap.Add(1)%4 == 0 {
			time.Sleep(3 * time.Millisecond) // a free may come meanwhile
		}
	}
	d.SetHook(func(kind, zone string) {
		if kind == "UPDATE" {
			mu.Lock()
			inflight[zone]--
			mu.Unlock()
		}
	})
	const workers, each = 8, 40
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				z := zones[(g+i)%len(zones)]
				if _, err := addA(u, z, fmt.Sprintf("g%d-%d", g, i), i); err != nil {
					t.Error(err)
					failed.Add(1)
				}
				time.Sleep(time.Duration(i%3) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if overlap > 0 {
		t.Errorf("%d UPDATEs sent while another of the same zone was in flight", overlap)
	}
	if u.freed.Load() == 0 {
		t.Error("no writer freed during the writes")
	}
	added := 0
	for _, z := range zones {
		for _, rr := range d.Records(z) {
			if strings.HasPrefix(rr.Header().Name, "g") {
				added++
			}
		}
	}
	if want := workers*each - int(failed.Load()); added != want {
		t.Errorf("%d records added, want %d", added, want)
	}
	t.Logf("%d writers freed during %d writes", u.freed.Load(), workers*each)
}

// BenchmarkIdleWriterHeap writes one record to each of N zones of a fake
// named (dnstest), 8 at a time, and prints the heap held (after a
// collection) and the writers, in the same run: once the writes are done
// (every zone's writer kept, as before writers were freed) and after a
// sweep frees the idle ones. The fake runs in the benchmark's process: its
// own growth (the records added, its journal) is in both figures. Run with
// go test ./dnsupdate -run '^$' -bench BenchmarkIdleWriterHeap -benchtime 1x.
func BenchmarkIdleWriterHeap(b *testing.B) {
	for _, n := range []int{2_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			zones := make([]string, n)
			for i := range zones {
				zones[i] = fmt.Sprintf("zone-%d.example", i)
			}
			_, u := fakeUpdater(b, zones...)
			u.idleAfter = time.Hour
			for range b.N {
				base := heapNow()
				var wg sync.WaitGroup
				next := atomic.Int64{}
				for range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
							if _, err := addA(u, zones[i], "www2", i); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				kept := heapNow()
				w0 := writerCount(u)
				u.wmu.Lock()
				u.idleAfter = time.Nanosecond
				u.wmu.Unlock()
				u.sweepIdle()
				freed := heapNow()
				w1 := writerCount(u)
				u.cache.mu.Lock()
				entries := len(u.cache.zones)
				u.cache.mu.Unlock()
				mb := func(h uint64) float64 { return float64(int64(h)-int64(base)) / (1 << 20) }
				b.Logf("%d zones written once: heap %.1f MB with their writers kept (%d writers), %.1f MB once idle writers are freed (%d writers, %d cache entries): %.2fx; %d bytes a writer (the rest is the fake named's, in the same process: the records added and its journal)",
					n, mb(kept), w0, mb(freed), w1, entries, mb(freed)/mb(kept), (int64(kept)-int64(freed))/int64(max(w0, 1)))
				b.ReportMetric(mb(kept), "MB-kept")
				b.ReportMetric(mb(freed), "MB-freed")
				b.ReportMetric(mb(freed)/mb(kept), "ratio")
			}
		})
	}
}
