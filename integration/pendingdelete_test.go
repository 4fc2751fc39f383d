package integration

import (
	"syscall"
	"testing"
	"time"
)

// TestPendingDeleteCompletedAfterRestart: a delete whose outcome the API
// does not know (its delzone sent, never executed, not answered: 504)
// leaves the zone served by named with the delete's intent pending, the
// state a 202 delete leaves when named is killed before its removal is
// durable. When named restarts, the API completes the delete at once,
// without a request for the zone: within seconds named no longer serves
// it and nothing of it is left (before: served until the next request
// for the zone or a reconcile).
func TestPendingDeleteCompletedAfterRestart(t *testing.T) {
	r, p := newProxiedRig(t, "3s", "")
	const zone = "pendingdelete.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	p.swallow.Store(true)
	p.lose("delzone")
	st, _, raw := r.try("DELETE", "/api/v1/zones/"+zone, nil)
	p.lose()
	p.swallow.Store(false)
	if st != 504 {
		t.Fatalf("delete whose delzone was never executed nor answered: %d %s, want 504", st, raw)
	}
	if _, served := soaOn(r.ns, zone); !served {
		t.Fatal("the state was not reproduced: named does not serve the zone")
	}
	_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
	for r.ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	r.ns.Restart(t)
	start := time.Now()
	for {
		_, served, files := r.state([]string{zone})
		_, answers := soaOn(r.ns, zone)
		if !served[zone] && !files[zone] && !answers {
			t.Logf("the delete was completed %v after named restarted", time.Since(start).Round(10*time.Millisecond))
			return
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("60 s after named restarted the zone whose delete is pending is still there: served %v, file %v, answers %v", served[zone], files[zone], answers)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
