package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestPatchSigningKeyDirectory: a PATCH that turns signing on for an
// unsigned zone ({"dnssecPolicy":"default"}) gives the zone the key
// directory a delete cleans (the zone directory): named writes its keys
// there, and the delete removes them (before: no key-directory, so named
// wrote them into its own directory, where they stayed after the delete).
func TestPatchSigningKeyDirectory(t *testing.T) {
	r := newCrashRig(t, "5s")
	const zone = "patchsigned.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	m := r.must("PATCH", "/api/v1/zones/"+zone, map[string]any{"dnssecPolicy": "default"}, 200)
	if cfg, _ := m["config"].(map[string]any); cfg == nil || !strings.Contains(fmt.Sprint(cfg["options"]), r.ns.ZoneDir) {
		t.Errorf("the signed zone's configuration names no key-directory in the zone directory: %v", m["config"])
	}
	if !r.waitKeyFiles(zone) {
		t.Fatal("named made no keys for the zone signed by PATCH")
	}
	r.must("DELETE", "/api/v1/zones/"+zone, nil, 200)
	if left := r.keyFiles(zone); len(left) > 0 {
		t.Fatalf("key files left after the delete: %v", left)
	}
	// Changing something else of a signed zone keeps its key directory.
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	r.must("PATCH", "/api/v1/zones/"+zone, map[string]any{"dnssecPolicy": "default"}, 200)
	m = r.must("PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{"192.0.2.9"}}, 200)
	if cfg, _ := m["config"].(map[string]any); cfg == nil || !strings.Contains(fmt.Sprint(cfg["options"]), r.ns.ZoneDir) {
		t.Errorf("a later PATCH dropped the key-directory: %v", m["config"])
	}
}

// TestSignedZoneAnswersWithKeys: a create or PATCH that gives a primary
// zone a dnssec-policy answers once named publishes the zone's DNSKEY
// RRset, so a client that publishes the DS right after finds the keys
// (before, named added them a little after the answer; and BIND 9.18 now
// and then did not run its key manager for a zone just added with a
// policy at all, which the API now asks it to, with rndc loadkeys). An
// answer that took the API's whole wait (zoneservice.keysWait, 10 s)
// came without the keys as documented; the keys are then waited for.
func TestSignedZoneAnswersWithKeys(t *testing.T) {
	r := newCrashRig(t, "20s")
	keysAfter := func(zone string, took time.Duration) {
		t.Helper()
		deadline := time.Now()
		if took >= 9*time.Second {
			t.Logf("the answer for %s took %v: waiting for named's keys", zone, took)
			deadline = deadline.Add(60 * time.Second)
		}
		for {
			if len(answers(query(t, r.ns, zone, dns.TypeDNSKEY), dns.TypeDNSKEY)) > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("no DNSKEY for %s right after the answer that signed it (in %v)", zone, took)
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for i := 0; i < 10; i++ {
		zone := fmt.Sprintf("signed%d.test", i)
		body := zoneBody(zone)
		body["zoneConfig"].(map[string]any)["dnssecPolicy"] = "default"
		t0 := time.Now()
		r.must("POST", "/api/v1/zones", body, 201)
		keysAfter(zone, time.Since(t0))
	}
	const zone = "patched.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	t0 := time.Now()
	r.must("PATCH", "/api/v1/zones/"+zone, map[string]any{"dnssecPolicy": "default"}, 200)
	keysAfter(zone, time.Since(t0))
}
