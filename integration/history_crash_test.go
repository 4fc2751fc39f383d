package integration

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// historyCrash is a run of TestHistoryCrashSafety: a stream of record
// changes to one zone, caddy killed with SIGKILL at random points, and
// what the API acknowledged. onStart, if set, runs after every start of
// caddy (the first and each restart): a second assertion (an event stream
// client resuming with Last-Event-ID, say) hooks in there and checks its
// own view at the end, beside assertExactlyOnce.
type historyCrash struct {
	r    *crashRig
	zone string

	mu         sync.Mutex
	addsAcked  map[string]bool // owner names whose add was answered 2xx
	rmsAcked   map[string]bool // owner names whose removal was answered 2xx
	onStart    func(r *crashRig)
	rounds     int
	unanswered int // requests that got no answer (caddy killed under them)
}

// TestHistoryCrashSafety kills caddy with SIGKILL
// (ZONEAPI_HISTORY_KILLS, default 20) at random points while four
// clients add records (and remove some) in one zone. After each restart
// the stream goes on; at the end, once the history caught up (the catch-up
// at start records from named's IXFR what a crash kept from being
// recorded), the history has every acknowledged change exactly once, no
// change twice, serials that chain with no gap up to the zone's serial,
// and replaying it gives the zone's records; and an event stream client
// that resumed with Last-Event-ID after every restart saw every entry of
// the history at least once, in order.
func TestHistoryCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short")
	}
	kills := envInt("ZONEAPI_HISTORY_KILLS", 20)
	rng, _ := crashRand(t, 0x415)

	ns, port := historyNamed(t)
	hc := &historyCrash{zone: "crashhist.test", addsAcked: map[string]bool{}, rmsAcked: map[string]bool{}}
	hc.r = newCrashRigOn(t, ns, "3s", caddyOpts{extra: fmt.Sprintf("history {\n\t\t\t\tnotify_listen 127.0.0.1:%d\n\t\t\t}", port)})
	hc.r.must("POST", "/api/v1/zones", zoneBody(hc.zone), http.StatusCreated)
	// An event stream client from the first event on, resuming with
	// Last-Event-ID after every kill: it sees each entry of the history
	// at least once and in order.
	stream := followEvents(t, func() string { return hc.r.c.Base }, testToken, "0")
	hc.run(t, rng, kills)
	hc.assertExactlyOnce(t)
	assertStreamSawHistory(t, stream, hc.r.c, hc.zone)
}

// run streams changes and kills caddy kills times.
func (hc *historyCrash) run(t *testing.T, rng *rand.Rand, kills int) {
	if hc.onStart != nil {
		hc.onStart(hc.r)
	}
	for round := 0; round < kills; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				hc.writer(fmt.Sprintf("k%d-w%d", round, w), stop)
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		_ = hc.r.c.Process().Signal(syscall.SIGKILL)
		close(stop)
		wg.Wait()
		<-hc.r.c.Done()
		hc.r.c.Start()
		hc.rounds++
		if hc.onStart != nil {
			hc.onStart(hc.r)
		}
	}
	t.Logf("%d kills; %d adds and %d removals acknowledged; %d requests unanswered", hc.rounds, len(hc.addsAcked), len(hc.rmsAcked), hc.unanswered)
}

// writer adds records named <prefix>-<i> one after the other, removing
// every third one it added again, until a request gets no answer (caddy
// killed) or stop.
func (hc *historyCrash) writer(prefix string, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		name := fmt.Sprintf("%s-%d", prefix, i)
		st, _, _ := hc.r.try("POST", "/api/v1/zones/"+hc.zone+"/records", map[string]any{"name": name, "type": "A", "value": "192.0.2.1"})
		if !hc.answered(st, name+"."+hc.zone, hc.addsAcked) {
			return
		}
		if i%3 != 2 {
			continue
		}
		st, _, _ = hc.r.try("DELETE", "/api/v1/zones/"+hc.zone+"/records", map[string]any{"name": name, "type": "A", "value": "192.0.2.1"})
		if !hc.answered(st, name+"."+hc.zone, hc.rmsAcked) {
			return
		}
	}
}

// answered records an answer; false when there was none.
func (hc *historyCrash) answered(status int, fqdn string, acked map[string]bool) bool {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	switch {
	case status == 0:
		hc.unanswered++
		return false
	case status < 300:
		acked[fqdn] = true
	}
	return true
}

// assertExactlyOnce waits until the history reached the zone's serial
// and checks it against what was acknowledged and what named serves.
func (hc *historyCrash) assertExactlyOnce(t *testing.T) {
	c := hc.r.c
	serial, ok := soaOn(hc.r.ns, hc.zone)
	if !ok {
		t.Fatal("zone not served")
	}
	var cs []change
	waitFor(t, "the history at the zone's serial", func() bool {
		cs = c.changes(testToken, "/api/v1/zones/"+hc.zone+"/changes?limit=1000")
		last := cs[len(cs)-1]
		return last.SerialAfter != nil && *last.SerialAfter == serial
	})
	added, removed := map[string]int{}, map[string]int{}
	var prev [2]uint32
	for i, ch := range cs {
		for _, s := range ch.Added {
			added[s.Name]++
		}
		for _, s := range ch.Removed {
			removed[s.Name]++
		}
		if ch.SerialAfter == nil {
			t.Fatalf("change %s has no serial", ch)
		}
		if i == 0 {
			prev = [2]uint32{0, *ch.SerialAfter}
			continue
		}
		if ch.SerialBefore == nil {
			t.Fatalf("change %s has no serial before", ch)
		}
		pair := [2]uint32{*ch.SerialBefore, *ch.SerialAfter}
		if pair != prev && pair[0] != prev[1] {
			// Writes merged into one UPDATE share its pair; otherwise
			// each change starts where the one before ended.
			t.Errorf("change %s does not follow serial %d: a gap or a duplicate", ch, prev[1])
		}
		prev = pair
	}
	external := 0
	for _, ch := range cs {
		if ch.Source == "external" {
			external++
		}
	}
	t.Logf("%d changes in the history (%d recorded from named's IXFR at a restart)", len(cs), external)
	for n := range hc.addsAcked {
		if added[n] != 1 {
			t.Errorf("acknowledged add of %s is in the history %d times", n, added[n])
		}
	}
	for n := range hc.rmsAcked {
		if removed[n] != 1 {
			t.Errorf("acknowledged removal of %s is in the history %d times", n, removed[n])
		}
	}
	for n, k := range added {
		if k > 1 {
			t.Errorf("the add of %s is in the history %d times", n, k)
		}
	}
	for n, k := range removed {
		if k > 1 {
			t.Errorf("the removal of %s is in the history %d times", n, k)
		}
	}
	// Replaying the history gives the zone's records of the stream.
	served := map[string]bool{}
	for _, rr := range axfr(t, hc.r.ns, hc.zone) {
		if n := strings.TrimSuffix(rr.Header().Name, "."); strings.HasPrefix(n, "k") {
			served[n] = true
		}
	}
	for n := range added {
		if want := removed[n] == 0; served[n] != want {
			t.Errorf("%s: served %v, the history says %v", n, served[n], want)
		}
	}
	for n := range served {
		if added[n] != 1 {
			t.Errorf("%s is served but its add is in the history %d times", n, added[n])
		}
	}
}
