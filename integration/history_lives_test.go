package integration

import (
	"fmt"
	"net/http"
	"testing"
)

// TestHistoryZoneLives: a zone deleted by one tenant and created again by
// another under the same name: the new owner's token reads only the new
// zone's changes (the zone's history, the history across zones, the event
// stream from its start), before and after a restart; a token allowed
// server-wide operations reads both lives.
func TestHistoryZoneLives(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "old", "new")
	extra := fmt.Sprintf(`auth static {
				token admin %s
				token old %s {
					actions zones records read
					zones life.test
				}
				token new %s {
					actions zones records read
					zones life.test
				}
			}`, hash["admin"], hash["old"], hash["new"])
	c := startCaddy(t, ns, caddyOpts{extra: extra})
	const zone = "life.test"
	add := func(who, name string) {
		t.Helper()
		expect(t, c.as(tok[who], "POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": name, "type": "A", "value": "192.0.2.1"}), http.StatusCreated, "add "+name)
	}
	expect(t, c.as(tok["old"], "POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "old owner's create")
	add("old", "secret-host")
	expect(t, c.as(tok["old"], "DELETE", "/api/v1/zones/"+zone, nil), http.StatusOK, "old owner's delete")
	expect(t, c.as(tok["new"], "POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "new owner's create")
	add("new", "www")

	check := func(when string) {
		t.Helper()
		for _, path := range []string{"/api/v1/zones/" + zone + "/changes", "/api/v1/changes"} {
			got := c.changes(tok["new"], path)
			if len(got) != 2 || got[0].Type != "zone.created" || got[0].Identity != "static:new" || len(got[1].Added) != 1 || got[1].Added[0].Name != "www."+zone {
				t.Errorf("%s, the new owner's %s: %v", when, path, got)
			}
			if all := c.changes(tok["admin"], path); len(all) != 5 {
				t.Errorf("%s, the admin's %s: %d changes, want both lives' 5: %v", when, path, len(all), all)
			}
		}
		s := followEvents(t, func() string { return c.Base }, tok["new"], "0")
		evs := s.waitEvents("the new owner's stream from the start", func(es []sseEvent) bool { return len(es) >= 2 })
		s.stop()
		for _, e := range evs {
			if e.Entry.Identity != "static:new" {
				t.Errorf("%s, the new owner's stream shows %s by %s", when, e.Entry.Type, e.Entry.Identity)
			}
		}
	}
	check("running")
	c.Stop()
	c.Start()
	check("after a restart")
}
