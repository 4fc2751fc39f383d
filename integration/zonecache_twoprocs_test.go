package integration

import (
	"net/http"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestZoneGetAnotherProcessFreeze: two Caddy processes share one zone
// directory and one named. After B freezes a zone, A's zone GET says
// what B's and named's zonestatus say (frozen, records not allowed),
// not what A cached before. It failed on main at 72f1acb: A answered
// state active and capabilities.records allowed while B answered frozen,
// for up to the cache's max age (a minute); only A's own refused record
// change made it ask named again. A freeze, thaw, reload or modify
// (modzone) by another process touches no index, which is all the zone
// cache follows of other processes (zonestore's ChangesSince).
func TestZoneGetAnotherProcessFreeze(t *testing.T) {
	ns := testbind.Start(t, nil)
	a := startCaddy(t, ns, caddyOpts{})
	b := startCaddy(t, ns, caddyOpts{})
	const zone = "twoprocs.test"
	expect(t, a.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	time.Sleep(2100 * time.Millisecond) // zoneSettle
	expect(t, a.do("GET", "/api/v1/zones/"+zone, nil), http.StatusOK, "A's GET (fills its cache)")
	expect(t, b.do("POST", "/api/v1/zones/"+zone+"/freeze", nil), http.StatusOK, "B freezes")
	if rb := b.do("GET", "/api/v1/zones/"+zone, nil); rb.body["state"] != "frozen" {
		t.Fatalf("B's own GET after its freeze: state %v", rb.body["state"])
	}
	r := a.do("GET", "/api/v1/zones/"+zone, nil)
	expect(t, r, http.StatusOK, "A's GET after B's freeze")
	if r.body["state"] != "frozen" {
		t.Errorf("A's GET after B's freeze: state %v, B and named say frozen", r.body["state"])
	}
	if c, _ := r.body["capabilities"].(map[string]any); c != nil {
		if rec, _ := c["records"].(map[string]any); rec["allowed"] == true {
			t.Errorf("A's GET after B's freeze: records allowed; the zone is frozen")
		}
	}
}
