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
