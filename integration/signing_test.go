package integration

import (
	"fmt"
	"strings"
	"testing"
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
