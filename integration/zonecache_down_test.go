package integration

import (
	"net/http"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestZoneGetWhileNamedDown: once named has stopped and the restart
// watch (zoneservice.DefaultWatchEvery) has failed to reach it, the zone
// GET no longer answers the zone's cached state (loaded, serial) as
// fact: it fails as GET /zones/{name}/status, which asks named, does.
// Once named is back the GET answers 200 again. Before the fix the zone
// cache answered 200, loaded true, for up to its max age (a minute)
// while named was not running.
func TestZoneGetWhileNamedDown(t *testing.T) {
	ns := testbind.Start(t, nil)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "down.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	time.Sleep(2100 * time.Millisecond) // zoneSettle: nothing cached just after the create
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), http.StatusOK, "GET (fills the cache)")
	before := zoneReads(t, c)
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), http.StatusOK, "GET (cached)")
	if n := zoneReads(t, c) - before; n != 0 {
		t.Fatalf("the second GET sent named %.0f commands: not cached, the test proves nothing", n)
	}

	ns.Stop()
	// Two ticks of the restart watch, which then has found named down.
	time.Sleep(2*2*time.Second + 500*time.Millisecond)
	status := c.do("GET", "/api/v1/zones/"+zone+"/status", nil)
	if status.status == http.StatusOK {
		t.Fatalf("GET /status answers 200 with named stopped")
	}
	r := c.do("GET", "/api/v1/zones/"+zone, nil)
	if r.status != status.status {
		t.Errorf("with named stopped the zone GET answers %d (loaded %v, serial %v) where GET /status answers %d", r.status, r.body["loaded"], r.body["serial"], status.status)
	}

	ns.Restart(t)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		r := c.do("GET", "/api/v1/zones/"+zone, nil)
		if r.status == http.StatusOK {
			if r.body["loaded"] != true {
				t.Errorf("after named's restart: loaded %v", r.body["loaded"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the zone GET answers %d 15 s after named restarted", r.status)
		}
	}
}
