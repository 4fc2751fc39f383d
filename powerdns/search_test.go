package powerdns

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
)

// slowNamed is fakeNamed whose record reads take a while, counting them
// and how many run at once.
type slowNamed struct {
	*fakeNamed
	mu             sync.Mutex
	reads, running int
	peak           int
	zones          []string // read, in the order the reads began
}

func (s *slowNamed) enter(zone string) {
	s.mu.Lock()
	s.reads++
	s.running++
	s.peak = max(s.peak, s.running)
	s.zones = append(s.zones, zone)
	s.mu.Unlock()
	time.Sleep(3 * time.Millisecond)
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
}

func (s *slowNamed) Records(ctx context.Context, zone string) (uint32, []dnsupdate.RRset, error) {
	s.enter(zone)
	return s.fakeNamed.Records(ctx, zone)
}

func (s *slowNamed) SearchRecords(ctx context.Context, zone string, match func(owner, value string) bool) ([]dnsupdate.RRset, error) {
	s.enter(zone)
	return s.fakeNamed.SearchRecords(ctx, zone, match)
}

// TestSearchReadsAheadInOrder: a search reads several zones at once
// (failed before: one at a time, peak 1), answers what a search one zone
// at a time answers, in zone order, and once max results are found reads
// at most searchParallel zones beyond the one that completed them.
func TestSearchReadsAheadInOrder(t *testing.T) {
	f := newFakeNamed(t)
	for i := range 40 {
		z := fmt.Sprintf("s%02d.test", i)
		f.zones[z] = &fakeZone{info: ZoneInfo{Name: z, Type: "primary"}, serial: 1, sets: map[string]*dnsupdate.RRset{
			"www." + z + ". A": {Name: "www." + z + ".", Type: "A", TTL: 300, Values: []string{fmt.Sprintf("192.0.2.%d", i)}},
		}}
	}
	for _, tc := range []struct {
		max   int
		zones []int // the zones of the results, in order
	}{
		{5, []int{1, 10, 11, 12, 13}},
		{100, []int{1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
	} {
		s := &slowNamed{fakeNamed: f}
		rec := httptest.NewRecorder()
		(&API{Service: s}).searchData(rec, httptest.NewRequest("GET", fmt.Sprintf("%s/search-data?q=192.0.2.1*&max=%d", Prefix, tc.max), nil), "")
		var want []string
		for _, i := range tc.zones {
			want = append(want, fmt.Sprintf(`{"object_type":"record","name":"www.s%02d.test.","zone_id":"s%02d.test.","zone":"s%02d.test.","type":"A","ttl":300,"disabled":false,"content":"192.0.2.%d"}`, i, i, i, i))
		}
		if got := strings.TrimSpace(rec.Body.String()); got != "["+strings.Join(want, ",")+"]" {
			t.Errorf("max %d: %s\nwant [%s]", tc.max, got, strings.Join(want, ","))
		}
		last := tc.zones[len(tc.zones)-1] + 1
		if tc.max == 100 {
			last = 40
		}
		if s.peak < 2 || s.reads > last+searchParallel || s.reads < last {
			t.Errorf("max %d: %d zones read (the results need %d), at most %d at once", tc.max, s.reads, last, s.peak)
		}
		t.Logf("max %d: %d zones read, at most %d at once", tc.max, s.reads, s.peak)
	}
}
