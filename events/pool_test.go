package events

import (
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestReleasedDelivererStopsAfterLinger: a deliverer released by its last
// holder goes on delivering for Linger, then stops and leaves the pool;
// one still held by another holder (the new generation of a reload) goes
// on past Linger.
func TestReleasedDelivererStopsAfterLinger(t *testing.T) {
	l := openLog(t)
	rc, srv := newReceiver(t)
	dir := t.TempDir()
	w := testHook(srv.URL)
	d, releaseOld, err := Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deliverer", func() bool { return d.Status().State == PhaseIdle })
	same, releaseNew, err := Start(l, dir, w, zap.NewNop()) // a reload's new generation
	if err != nil {
		t.Fatal(err)
	}
	if same != d {
		t.Fatal("a second holder got another deliverer")
	}
	releaseOld()
	releaseOld() // a second release gives nothing back
	time.Sleep(Linger + 500*time.Millisecond)
	select {
	case <-d.done:
		t.Fatal("the deliverer stopped while the new generation held it")
	default:
	}
	appendChanges(t, l, 2, "a.test")
	waitFor(t, "the events after the old generation's release", func() bool { got, _ := rc.snapshot(); return len(got) == 2 })

	released := time.Now()
	releaseNew()
	appendChanges(t, l, 2, "a.test")
	waitFor(t, "the events within Linger of the last release", func() bool { got, _ := rc.snapshot(); return len(got) == 4 })
	select {
	case <-d.done:
		if waited := time.Since(released); waited < Linger {
			t.Fatalf("the deliverer stopped %v after its last release, before Linger (%v)", waited, Linger)
		}
	case <-time.After(Linger + 10*time.Second):
		t.Fatal("the deliverer runs on after Linger with no holder")
	}
	if _, ok := deliverers.References(dir + "\x00" + w.fingerprint()); ok {
		t.Error("the stopped deliverer is still in the pool")
	}
	fresh, release, err := Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release(); stopNow(fresh) }()
	if fresh == d {
		t.Error("a webhook taken after the deliverer stopped got the stopped one")
	}
}
