package zoneservice

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// TestWatchRestartsHeals: at the first look at named, after a restart (a
// new boot time) and after named could not be asked, the watch heals:
// reconcile, catalog, and a NOTIFY of the catalog zone, none of the
// managed zones (named notifies each as it loads it); while named's boot
// time stays the same, nothing.
func TestWatchRestartsHeals(t *testing.T) {
	r := catalogRig(t)
	if err := r.store.Put(zonestore.Entry{Name: "rec.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	r.ans.set("showzone rec.test", rndc.Response{Text: `zone "rec.test" { type primary; file "/z/rec.test.zone"; };`})
	r.ans.set("notify", rndc.Response{Text: "zone notify queued"})
	var boot atomic.Value
	boot.Store("20261126100000")
	var down atomic.Bool
	var refused atomic.Int64 // statuses answered with a failure
	r.ans.setFunc("status", func() rndc.Response {
		if down.Load() {
			refused.Add(1)
			return rndc.Response{Result: 1, Err: "failure"}
		}
		return rndc.Response{Text: "version: BIND 9.18.0\nboot time: " + boot.Load().(string) + "\nserver is up and running\n"}
	})
	notifies := func() int {
		n := 0
		for _, c := range r.named.Commands() {
			if strings.HasPrefix(c, "notify ") {
				n++
			}
		}
		return n
	}
	wait := func(want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for notifies() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%d notifies, want %d: commands %v", notifies(), want, r.named.Commands())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.svc.WatchRestarts(ctx, 10*time.Millisecond); close(done) }()
	wait(1) // the first look: cat.test
	time.Sleep(50 * time.Millisecond)
	if n := notifies(); n != 1 {
		t.Fatalf("the same boot time healed again: %d notifies", n)
	}
	boot.Store("20261126110000") // named restarted
	wait(2)
	// named cannot be asked, then answers again. The watch must have
	// asked while it could not: a fixed 30 ms pause here assumed that the
	// watch's goroutine runs within it, not so under load.
	down.Store(true)
	for deadline := time.Now().Add(30 * time.Second); refused.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch did not ask named for its status while it could not answer")
		}
	}
	down.Store(false)
	wait(3)
	cancel()
	<-done
	for _, c := range r.named.Commands() {
		if c == "notify rec.test" {
			t.Errorf("a managed zone was notified: %v", r.named.Commands())
			break
		}
	}
	if got := r.svc.NotLoaded(); len(got) != 0 {
		t.Errorf("NotLoaded = %v", got)
	}
}

// TestWatchSettlesWhatItLeftPending: a create whose addzone named never
// executed (504) is pending while named may still execute the command;
// the restart watch's healing (its first look at named) must leave it
// so, and settles it once named can tell (after the command's expiry),
// without a request for the zone or a reconcile. Before, nothing after
// the healing looked at it again: the intent stayed pending and its file
// in the zone directory until a request for that zone or a reconcile.
func TestWatchSettlesWhatItLeftPending(t *testing.T) {
	r := newRig(t)
	var clock atomic.Int64
	clock.Store(r.now.UnixNano())
	r.s.Now = func() time.Time { return time.Unix(0, clock.Load()) }
	r.named.addUnknown = true // never executed
	if _, err := r.create("a.test"); !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("create: %v, want an unknown outcome", err)
	}
	r.named.mu.Lock()
	r.named.addUnknown = false
	r.named.mu.Unlock()
	var looks atomic.Int64
	r.s.WatchStatus = func(context.Context) (*rndc.ServerStatus, error) {
		looks.Add(1)
		return &rndc.ServerStatus{BootTime: "Sat, 28 Nov 2026 00:42:44 GMT"}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.s.WatchRestarts(ctx, time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()
	waitLooks := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); looks.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d looks at named, want %d", looks.Load(), n)
			}
		}
	}
	waitLooks(3) // the first look healed (a look waits for the one before)
	if _, p, _ := r.store.PendingIntent("a.test"); !p {
		t.Fatal("the create was settled while named could still execute its addzone")
	}
	clock.Add(int64(time.Minute)) // past the command's expiry
	n := looks.Load()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, p, _ := r.store.PendingIntent("a.test"); !p {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the create is still pending %d looks at named after the command's expiry", looks.Load()-n)
		}
	}
	waitLooks(looks.Load() + 2)
	if r.exists(r.file("a.test")) {
		t.Error("the undone create's file is still there")
	}
}
