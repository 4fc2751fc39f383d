package integration

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// showzone returns named's own statement of zone (the rndc program, not
// the API under test).
func showzone(t testing.TB, c *caddy, zone string) string {
	t.Helper()
	out, err := c.NS.RNDC("showzone", zone)
	if err != nil {
		t.Fatalf("rndc showzone %s: %v", zone, err)
	}
	return strings.TrimSpace(out)
}

// configOf returns GET /zones/{name}'s config object.
func configOf(t testing.TB, c *caddy, zone string) map[string]any {
	t.Helper()
	r := c.do("GET", "/api/v1/zones/"+zone, nil)
	expect(t, r, http.StatusOK, "GET zone")
	cfg, _ := r.body["config"].(map[string]any)
	if cfg == nil {
		t.Fatalf("GET %s has no config: %s", zone, r.raw)
	}
	return cfg
}

func strs(v any) []string {
	var out []string
	for _, x := range toSlice(v) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func toSlice(v any) []any { s, _ := v.([]any); return s }

// TestModifyZone: bindcar's PATCH cases, and what bindcar could not do
// (ports, keys, primaries, dnssec-policy), checked with named's own
// showzone.
func TestModifyZone(t *testing.T) {
	t.Parallel()
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "modify.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	grant := `allow-update { key "zoneapi-update"; };`
	if !strings.Contains(showzone(t, c, zone), grant) {
		t.Fatalf("the new zone has no key grant: %s", showzone(t, c, zone))
	}
	before := showzone(t, c, zone)

	// {} -> 400, nothing changed.
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{}), 400, "Bad Request", "at least one field")
	// A bad address -> 400, nothing changed.
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"allowTransfer": []string{"192.0.2.300"}}), 400, "Bad Request", "allowTransfer[0]")
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{"192.0.2.1:99999"}}), 400, "Bad Request", "alsoNotify[0]")
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"allowUpdate": []string{"key bad\"name"}}), 400, "Bad Request", "allowUpdate[0]")
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"primaries": []string{"192.0.2.1"}}), 400, "Bad Request", "secondary zones")
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"allowTransfer": []string{}, "bogus": 1}), 400, "Bad Request", "bogus")
	if got := showzone(t, c, zone); got != before {
		t.Fatalf("a refused PATCH changed the zone:\n%s\nwas\n%s", got, before)
	}
	// Unknown zone -> 404.
	expectError(t, c.do("PATCH", "/api/v1/zones/nope.test", map[string]any{"allowTransfer": []string{"192.0.2.1"}}), 404, "Not Found", "nope.test")
	expectError(t, c.do("PATCH", "/api/v1/zones/bad..name", map[string]any{"allowTransfer": []string{"192.0.2.1"}}), 400, "Bad Request", "invalid zone name")

	// allowTransfer only -> 200, and the allow-update key grant is still
	// there.
	r := c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"allowTransfer": []string{"192.0.2.10", "198.51.100.0/24"}})
	expect(t, r, http.StatusOK, "PATCH allowTransfer")
	if r.str("details") != "zone '"+zone+"' reconfigured." {
		t.Errorf("details = %q", r.str("details"))
	}
	sz := showzone(t, c, zone)
	if !strings.Contains(sz, grant) || !strings.Contains(sz, "allow-transfer") || !strings.Contains(sz, "198.51.100.0/24;") {
		t.Errorf("after allowTransfer: %s", sz)
	}
	// allowUpdate with addresses keeps the key grant (bindcar drops it).
	expect(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"allowUpdate": []string{"127.0.0.1"}}), http.StatusOK, "PATCH allowUpdate")
	if sz := showzone(t, c, zone); !strings.Contains(sz, `allow-update { key "zoneapi-update"; 127.0.0.1/32; };`) {
		t.Errorf("after allowUpdate: %s", sz)
	}
	// Ports and keys in also-notify; a dnssec-policy.
	r = c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{
		"alsoNotify":   []string{"127.0.0.1:5399", "[2001:db8::1]:53 key zoneapi-update"},
		"dnssecPolicy": "default",
	})
	expect(t, r, http.StatusOK, "PATCH alsoNotify")
	sz = showzone(t, c, zone)
	for _, want := range []string{`also-notify { 127.0.0.1 port 5399; 2001:db8::1 port 53 key "zoneapi-update"; };`, `dnssec-policy "default";`, grant[:len(grant)-4]} {
		if !strings.Contains(sz, want) {
			t.Errorf("showzone lacks %q: %s", want, sz)
		}
	}
	// GET shows the configuration in the API's notation.
	cfg := configOf(t, c, zone)
	if got := strs(cfg["alsoNotify"]); !slices.Equal(got, []string{"127.0.0.1:5399", "[2001:db8::1]:53 key zoneapi-update"}) {
		t.Errorf("config.alsoNotify = %q", got)
	}
	if got := strs(cfg["allowUpdate"]); !slices.Equal(got, []string{"key zoneapi-update", "127.0.0.1"}) {
		t.Errorf("config.allowUpdate = %q", got)
	}
	if cfg["type"] != "primary" || cfg["dnssecPolicy"] != "default" || !strings.HasPrefix(cfg["statement"].(string), `zone "modify.test"`) {
		t.Errorf("config = %v", cfg)
	}
	// Removing: [] empties a server list; a dnssec-policy named does not
	// know is refused with 400 and changes nothing.
	before = showzone(t, c, zone)
	expectError(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"dnssecPolicy": "no-such-policy"}), 400, "Bad Request", "unchanged")
	if got := showzone(t, c, zone); got != before {
		t.Errorf("a refused modzone changed the zone: %s", got)
	}
	expect(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{}, "allowUpdate": []string{}}), http.StatusOK, "PATCH remove")
	if sz := showzone(t, c, zone); strings.Contains(sz, "also-notify") || !strings.Contains(sz, grant) {
		t.Errorf("after removing: %s", sz)
	}
	// inline-signing can be changed (BIND 9.18 allows it through modzone).
	expect(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"inlineSigning": true}), http.StatusOK, "PATCH inlineSigning")
	if sz := showzone(t, c, zone); !strings.Contains(sz, "inline-signing yes;") || !strings.Contains(sz, grant) {
		t.Errorf("after inlineSigning: %s", sz)
	}
	// Records still work through the kept key grant.
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "kept", "type": "A", "value": "192.0.2.7"}), http.StatusCreated, "record add after PATCH")

	// Retransfer of a primary: 409 with named's reason; unknown: 404.
	expectError(t, c.do("POST", "/api/v1/zones/"+zone+"/retransfer", nil), 409, "Conflict", "inappropriate zone type: primary")
	expectError(t, c.do("POST", "/api/v1/zones/nope.test/retransfer", nil), 404, "Not Found", "nope.test")
}
