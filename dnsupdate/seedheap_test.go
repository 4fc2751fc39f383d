package dnsupdate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// oldZoneSnap and oldSeed are the record cache's entry and seed as they
// were before seeds shared their text (a seed kept its file's copy in the
// zone's cache entry), for BenchmarkSeedHeap's same-run baseline.
type oldZoneSnap struct {
	zone       string
	fill       sync.Mutex
	snap       *Snapshot
	seed       *oldSeed
	prev, next *oldZoneSnap
	size       int
	pinned     bool
	refs       int
}

type oldSeed struct {
	serial uint32
	data   []byte
}

// BenchmarkSeedHeap: the heap the seeds of N zones created alike hold
// (the create's file, as BenchmarkScale creates zones), live after a
// collection and allocated while seeding, kept as before (emulated: a
// cache entry and a copy of the file per zone) and as now (a shared
// text, the serial per zone), same run; and what a zone's first
// whole-zone difference costs to read its content at the seed's serial:
// from its seed, and from its file (a zone without a seed: the zone
// service's fileAt reads the file, seeds it and reads that).
//
//	go test ./dnsupdate -run '^$' -bench BenchmarkSeedHeap -benchtime 1x
func BenchmarkSeedHeap(b *testing.B) {
	const serial = 2026112701
	for _, zones := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(zones), func(b *testing.B) {
			names := make([]string, zones)
			files := make([][]byte, zones)
			for i := range names {
				names[i] = fmt.Sprintf("zone%d.example", i)
				files[i] = createdFile(names[i], serial)
			}
			measure := func(seed func() any) (live, alloc float64) {
				var ms0, ms1 runtime.MemStats
				base := heapNow()
				runtime.ReadMemStats(&ms0)
				held := seed()
				runtime.ReadMemStats(&ms1)
				live = float64(int64(heapNow())-int64(base)) / (1 << 20)
				runtime.KeepAlive(held)
				return live, float64(ms1.TotalAlloc-ms0.TotalAlloc) / (1 << 20)
			}
			for range b.N {
				oldLive, oldAlloc := measure(func() any {
					m := map[string]*oldZoneSnap{}
					for i, z := range names {
						m[z] = &oldZoneSnap{zone: z, seed: &oldSeed{serial: serial, data: bytes.Clone(files[i])}}
					}
					return m
				})
				var u *Updater
				newLive, newAlloc := measure(func() any {
					u = NewUpdater(nil)
					for i, z := range names {
						if !u.Seed(z, serial, files[i]) {
							b.Fatalf("seed %d not kept", i)
						}
					}
					return u
				})
				b.ReportMetric(oldLive, "MB-live-before")
				b.ReportMetric(newLive, "MB-live-now")
				b.ReportMetric(newLive/oldLive, "x-live")
				b.ReportMetric(oldAlloc, "MB-alloc-before")
				b.ReportMetric(newAlloc, "MB-alloc-now")
				b.ReportMetric(newLive*(1<<20)/float64(zones), "B/zone-now")
				b.ReportMetric(oldLive*(1<<20)/float64(zones), "B/zone-before")

				// A first whole-zone difference's base: from the seed,
				// and from the file (fileAt), 1,000 zones each.
				dir := b.TempDir()
				for i := range 1000 {
					if err := os.WriteFile(filepath.Join(dir, names[i]), files[i], 0o644); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				for i := range 1000 {
					if u.Cached(names[i], serial) == nil {
						b.Fatal("no seed")
					}
				}
				fromSeed := time.Since(start)
				u = NewUpdater(nil)
				start = time.Now()
				for i := range 1000 {
					data, err := os.ReadFile(filepath.Join(dir, names[i]))
					if err != nil || !u.Seed(names[i], serial, data) || u.Cached(names[i], serial) == nil {
						b.Fatal("no file", err)
					}
				}
				fromFile := time.Since(start)
				b.ReportMetric(float64(fromSeed.Microseconds())/1000, "µs/base-from-seed")
				b.ReportMetric(float64(fromFile.Microseconds())/1000, "µs/base-from-file")
			}
		})
	}
}
