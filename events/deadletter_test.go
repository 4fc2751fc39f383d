package events

import (
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestDeadLettersHoldTheirZoneAndRetry: a receiver that refuses zone a's
// events makes the first a dead letter past the retry limit, and a's
// later events wait behind it while b's are delivered; after the
// receiver is fixed, Retry delivers a's events in order.
func TestDeadLettersHoldTheirZoneAndRetry(t *testing.T) {
	l := openLog(t)
	rc, srv := newReceiver(t)
	rc.setFail(func(e history.Entry) bool { return e.Zone == "a.test" })
	w := testHook(srv.URL)
	w.DeadAfter = 100 * time.Millisecond
	d, release, err := Start(l, t.TempDir(), w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release(); stopNow(d) }()
	waitFor(t, "the deliverer to start", func() bool { return d.Status().State == PhaseIdle })
	want := appendChanges(t, l, 20, "a.test", "b.test")
	waitFor(t, "b's events", func() bool { got, _ := rc.snapshot(); return len(got) == 10 })
	waitFor(t, "idle", func() bool { return d.Status().State == PhaseIdle })
	st := d.Status()
	if len(st.DeadLetters) != 1 || st.DeadLetters[0].Zone != "a.test" || st.DeadLetters[0].ID != want[0].ID || st.DeadLetters[0].Held != 9 {
		t.Fatalf("dead letters: %+v", st.DeadLetters)
	}
	if d.deadLetters() != 10 {
		t.Errorf("dead-letter gauge %d, want 10", d.deadLetters())
	}
	rc.setFail(nil)
	n, err := d.Retry()
	if err != nil || n != 1 {
		t.Fatalf("Retry: %d, %v", n, err)
	}
	waitFor(t, "a's events", func() bool { got, _ := rc.snapshot(); return len(got) == 20 })
	got, bad := rc.snapshot()
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	checkOrder(t, want, got)
	// Later events of a go straight through again.
	more := appendChanges(t, l, 4, "a.test", "b.test")
	waitFor(t, "the later events", func() bool { got, _ := rc.snapshot(); return len(got) == 24 })
	got, _ = rc.snapshot()
	checkOrder(t, append(want, more...), got)
	if st := d.Status(); len(st.DeadLetters) != 0 || len(st.Retrying) != 0 {
		t.Errorf("after the retry: %+v", st)
	}
}

// TestCursorSurvivesRestart: events recorded while no deliverer runs
// (a restart) are delivered when it starts again, from its durable
// cursor; a new webhook starts at the history's end.
func TestCursorSurvivesRestart(t *testing.T) {
	l := openLog(t)
	appendChanges(t, l, 5, "old.test") // before the webhook existed
	rc, srv := newReceiver(t)
	dir := t.TempDir()
	w := testHook(srv.URL)
	d, release, err := Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deliverer to start", func() bool { return d.Status().State == PhaseIdle })
	first := appendChanges(t, l, 10, "a.test", "b.test")
	waitFor(t, "the first events", func() bool { got, _ := rc.snapshot(); return len(got) == 10 })
	release()
	stopNow(d)
	if st := d.Status(); st.State != PhaseStopped {
		t.Fatalf("state after release: %s", st.State)
	}
	second := appendChanges(t, l, 10, "a.test", "b.test")
	d, release, err = Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release(); stopNow(d) }()
	waitFor(t, "the events recorded while stopped", func() bool { got, _ := rc.snapshot(); return len(got) >= 20 })
	got, _ := rc.snapshot()
	checkOrder(t, append(first, second...), got)
	for _, e := range got {
		if e.Zone == "old.test" {
			t.Fatalf("a new webhook got an event from before it existed: %+v", e)
		}
	}
}

// TestReloadHandsOver: a deliverer of the same webhook with another
// configuration (the next generation of a reload) waits while the old one
// holds the state, and takes over from its cursor when it stops.
func TestReloadHandsOver(t *testing.T) {
	l := openLog(t)
	rc, srv := newReceiver(t)
	dir := t.TempDir()
	w1 := testHook(srv.URL)
	d1, release1, err := Start(l, dir, w1, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first deliverer", func() bool { return d1.Status().State == PhaseIdle })
	want := appendChanges(t, l, 6, "a.test")
	waitFor(t, "the first events", func() bool { got, _ := rc.snapshot(); return len(got) == 6 })
	w2 := w1
	w2.Timeout = 3 * time.Second // another configuration of the same name
	d2, release2, err := Start(l, dir, w2, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	waitFor(t, "the second to stand by", func() bool { return d2.Status().State == PhaseStandby })
	if _, err := d2.Retry(); err != ErrNotHere {
		t.Errorf("Retry on a standby deliverer: %v", err)
	}
	release1()
	stopNow(d1)
	more := appendChanges(t, l, 6, "a.test")
	waitFor(t, "the later events", func() bool { got, _ := rc.snapshot(); return len(got) >= 12 })
	got, _ := rc.snapshot()
	checkOrder(t, append(want, more...), got)
	if len(got) != 12 {
		t.Errorf("%d deliveries, want 12 (no duplicates after a clean hand-over)", len(got))
	}
}

// TestStuckReceiverNeverSlowsAppends: while the receiver holds a delivery
// and never answers, appends to the history still complete (they never
// wait for a delivery).
func TestStuckReceiverNeverSlowsAppends(t *testing.T) {
	l := openLog(t)
	stuck := make(chan struct{})
	entered := make(chan struct{}, 1)
	srv := newStuckServer(t, stuck, entered)
	w := testHook(srv)
	w.Timeout = time.Hour
	d, release, err := Start(l, t.TempDir(), w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deliverer to start", func() bool { return d.Status().State == PhaseIdle })
	appendChanges(t, l, 1, "a.test")
	<-entered // the receiver holds the first delivery
	done := make(chan struct{})
	go func() {
		appendChanges(t, l, 200, "a.test", "b.test")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("appends did not complete while the receiver was stuck")
	}
	if st := d.Status(); st.State != PhaseDelivering || st.Behind < 200 {
		t.Errorf("status while stuck: %+v", st)
	}
	close(stuck)
	release()
	stopNow(d)
}

// TestReleasedDelivererLingers: a deliverer released and taken again
// within Linger (a reload that keeps the webhook) is the same one, still
// running.
func TestReleasedDelivererLingers(t *testing.T) {
	l := openLog(t)
	rc, srv := newReceiver(t)
	dir := t.TempDir()
	w := testHook(srv.URL)
	d1, release1, err := Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deliverer", func() bool { return d1.Status().State == PhaseIdle })
	release1()
	d2, release2, err := Start(l, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release2(); stopNow(d2) }()
	if d2 != d1 {
		t.Fatal("a webhook taken again within Linger got a new deliverer")
	}
	want := appendChanges(t, l, 3, "a.test")
	waitFor(t, "the events", func() bool { got, _ := rc.snapshot(); return len(got) == 3 })
	got, _ := rc.snapshot()
	checkOrder(t, want, got)
}

// TestReopenedHistoryKeepsTheDeliverer: a reload that closes the history
// and opens it again (a new Log of the same directory) within Linger
// keeps the deliverer, which goes on reading the new Log.
func TestReopenedHistoryKeepsTheDeliverer(t *testing.T) {
	hdir := t.TempDir()
	l1, err := history.Open(hdir, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc, srv := newReceiver(t)
	dir := t.TempDir()
	w := testHook(srv.URL)
	d1, release1, err := Start(l1, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deliverer", func() bool { return d1.Status().State == PhaseIdle })
	want := appendChanges(t, l1, 3, "a.test")
	waitFor(t, "the first events", func() bool { got, _ := rc.snapshot(); return len(got) == 3 })
	release1()
	l1.Close()
	l2, err := history.Open(hdir, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	d2, release2, err := Start(l2, dir, w, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release2(); stopNow(d2) }()
	if d2 != d1 {
		t.Fatal("a reopened history got a new deliverer")
	}
	more := appendChanges(t, l2, 3, "a.test")
	waitFor(t, "the events of the reopened history", func() bool { got, _ := rc.snapshot(); return len(got) == 6 })
	got, _ := rc.snapshot()
	checkOrder(t, append(want, more...), got)
}
