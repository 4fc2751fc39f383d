package integration

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestartHealing: the API notices that named restarted (its boot
// time changed) and heals at once, without a request: a full reconcile
// (here it repairs a zone named no longer loads because of an empty
// journal) and NOTIFY for every managed zone.
func TestRestartHealing(t *testing.T) {
	r := newCrashRig(t, "5s")
	const zone = "healed.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
	for r.ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	if err := writeEmptyJournal(r, zone); err != nil {
		t.Fatal(err)
	}
	r.ns.Restart(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		loaded, _ := r.zoneLoaded(zone)
		if loaded && strings.Contains(r.c.Log(), "healed after named restarted") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("60 s after named restarted: zone loaded %v; the API's log:\n%s", loaded, logTail(r.c.Log()))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// logTail is the last 3,000 characters of a log.
func logTail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// TestRestartWatchReadsStatistics: with a statistics channel, the restart
// watch learns named's boot time from its server counters, not from `rndc
// status` every 2 s (which walks every zone in named: O(zones) in the
// background), and still notices a restart.
func TestRestartWatchReadsStatistics(t *testing.T) {
	ns := startNamed(t)
	p := newCtlProxy(t, ns.ControlAddr) // counts the commands Caddy sends
	r := newCrashRigOn(t, ns, "5s", caddyOpts{control: p.addr(), extra: "statistics_channel " + ns.StatsAddr})
	const zone = "watched.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	// The watch's first look (2 s after the start) heals once.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.c.Log(), "healed after named restarted") {
		if time.Now().After(deadline) {
			t.Fatalf("no first look of the restart watch; the API's log:\n%s", logTail(r.c.Log()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := p.commands("status")
	time.Sleep(5 * time.Second) // two and a half watch intervals
	if n := p.commands("status") - before; n != 0 {
		t.Fatalf("named received %d rndc status commands in 5 s of the restart watch with a statistics channel, want 0", n)
	}

	_ = syscall.Kill(ns.Pid(), syscall.SIGKILL)
	for ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(1100 * time.Millisecond) // a boot time of another second
	ns.Restart(t)
	deadline = time.Now().Add(60 * time.Second)
	for !strings.Contains(r.c.Log(), "named restarted (boot time") {
		if time.Now().After(deadline) {
			t.Fatalf("60 s after named restarted, the watch did not notice; the API's log:\n%s", logTail(r.c.Log()))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if loaded, _ := r.zoneLoaded(zone); !loaded {
		t.Fatalf("%s not loaded after the restart", zone)
	}
}
