package integration

import (
	"syscall"
	"testing"
	"time"
)

// TestUpdateAfterNamedRestart: the first record change after named
// restarted finds pooled connections that named closed; they are noticed
// before anything is written on them and the change goes out once, on a
// new connection, signed (a copy sent again after a failed write must be
// signed afresh; before: the
// DNS library had taken the TSIG record off the message when it signed
// the first copy, the second went unsigned, named refused it and the API
// answered 400 "zone does not accept dynamic updates signed with the
// key"; a catalog's first UPDATE after a restart failed the same way, so
// the create was undone).
func TestUpdateAfterNamedRestart(t *testing.T) {
	r, _ := catalogRig(t, "catalog.restart-update.test")
	const zone = "restart-update.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	add := func(name string) (int, string) {
		st, _, raw := r.try("PATCH", "/api/v1/zones/"+zone+"/records", map[string]any{"changes": []map[string]any{{"op": "add", "name": name, "type": "TXT", "value": name}}})
		return st, raw
	}
	if st, raw := add("before"); st != 200 {
		t.Fatalf("record add: %d %s", st, raw)
	}
	_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
	for r.ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	r.ns.Restart(t)
	// The catalog's UPDATE is the first message on the stale connection.
	if st, _, raw := r.try("POST", "/api/v1/zones", zoneBody("second."+zone)); st != 201 {
		t.Fatalf("first create after named restarted (catalog on): %d %s", st, raw)
	}
	if st, raw := add("after"); st != 200 {
		t.Fatalf("record add after named restarted: %d %s", st, raw)
	}
}
