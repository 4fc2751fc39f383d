package integration

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// catalogRig is named, a DNS proxy in front of it for the catalog zone's
// UPDATEs and caddy with the catalog on, sending its UPDATEs through the
// proxy.
func catalogRig(t *testing.T, catalogZone string) (*crashRig, *dnsProxy) {
	ns := startNamed(t)
	proxy := newDNSProxy(t, ns.DNSAddr, catalogZone)
	r := newCrashRigOn(t, ns, "3s", caddyOpts{extra: fmt.Sprintf("dns_server %s\n\t\t\tcatalog %s", proxy.addr(), catalogZone)})
	return r, proxy
}

// TestCreateUndoFailedAnswers504: with the catalog on, named dies between
// the create's addzone and its catalog UPDATE, so the catalog step fails
// and so does the undo's delzone. Whether the zone exists is then
// unknown (named will load it again from its new-zone database): the
// create answers 504, and once named is back the zone is settled, the
// same everywhere (before: 500 "zone … was not created", and after
// named's restart the zone was served, had its file, and the next
// reconcile completed it).
func TestCreateUndoFailedAnswers504(t *testing.T) {
	const catalogZone = "catalog.undo.test"
	r, proxy := catalogRig(t, catalogZone)
	// The restart watch's first look reconciles the catalog: had it come
	// during the create below (a slow run), its catalog UPDATE would have
	// been the one the proxy holds or loses.
	waitFirstLook(t, r.c)
	r.must("POST", "/api/v1/zones", zoneBody("first.undo.test"), 201)
	const zone = "undo.test"
	proxy.armed.Store(true)
	done := make(chan [2]any, 1)
	go func() {
		st, _, raw := r.try("POST", "/api/v1/zones", zoneBody(zone))
		done <- [2]any{st, raw}
	}()
	select {
	case <-proxy.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the catalog UPDATE never came")
	}
	// named dies with the zone added and the catalog step in flight.
	_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
	for r.ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	proxy.armed.Store(false)
	proxy.release()
	res := <-done
	st, raw := res[0].(int), res[1].(string)
	r.ns.Restart(t)
	r.settle()
	listed, served, files := r.state([]string{zone})
	exists := listed[zone]
	if listed[zone] != served[zone] || served[zone] != files[zone] {
		t.Fatalf("after settling: listed %v, served %v, file %v", listed[zone], served[zone], files[zone])
	}
	t.Logf("create answered %d; once settled the zone exists: %v", st, exists)
	switch {
	case st == 504:
		if !strings.Contains(raw, "outcome is unknown") {
			t.Errorf("504 without saying the outcome is unknown: %s", raw)
		}
	case exists:
		t.Fatalf("create answered %d %s, but the zone exists once settled", st, raw)
	case strings.Contains(raw, "not created"):
		// true: it was not created
	default:
		t.Errorf("create answered %d %s, want 504", st, raw)
	}
	if st != 504 {
		t.Errorf("the undo's delzone could not run (named was dead): the outcome was unknown, want 504, got %d %s", st, raw)
	}
	want := map[string]bool{"first.undo.test": true}
	if exists {
		want[zone] = true
	}
	r.must("POST", "/api/v1/catalog/reconcile", nil, 200)
	checkCatalog(t, r.c, r.ns, want, "after settling")
}

// TestCatalogMemberReplyLost: named applies the catalog UPDATE that adds
// a new zone's member but its reply is lost, so the create fails and is
// undone: the answer says the zone was not created, and at once the
// catalog has no member for it (before: the member stayed until the next
// catalog reconcile, and secondaries tried to transfer a zone that does
// not exist).
func TestCatalogMemberReplyLost(t *testing.T) {
	const catalogZone = "catalog.lost.test"
	r, proxy := catalogRig(t, catalogZone)
	// The restart watch's first look reconciles the catalog: had it come
	// during the create below (a slow run), its catalog UPDATE would have
	// been the one the proxy holds or loses.
	waitFirstLook(t, r.c)
	r.must("POST", "/api/v1/zones", zoneBody("first.lost.test"), 201)
	const zone = "lost.test"
	proxy.loseReply.Store(true)
	st, _, raw := r.try("POST", "/api/v1/zones", zoneBody(zone))
	proxy.loseReply.Store(false)
	// One value per copy of the member's UPDATE that named applied: a
	// copy sent again after the lost reply would show as two.
	if n := len(proxy.lost); n != 1 {
		t.Fatalf("%d catalog UPDATE replies lost, want exactly 1, the one UPDATE sent (create answered %d %s)", n, st, raw)
	}
	if st/100 == 2 {
		t.Fatalf("create whose catalog step failed answered %d %s", st, raw)
	}
	listed, served, files := r.state([]string{zone})
	if listed[zone] || served[zone] || files[zone] {
		t.Fatalf("create answered %d %s, but listed %v served %v file %v", st, raw, listed[zone], served[zone], files[zone])
	}
	checkCatalog(t, r.c, r.ns, map[string]bool{"first.lost.test": true}, "right after the failed create")
}
