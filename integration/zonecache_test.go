package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// zoneReads is how many zonestatus and showzone commands caddy has sent
// named so far.
func zoneReads(t testing.TB, c *caddy) float64 {
	t.Helper()
	var n float64
	for k, v := range scrape(t, c) {
		if strings.HasPrefix(k, `zoneapi_rndc_commands_total{command="zonestatus"`) || strings.HasPrefix(k, `zoneapi_rndc_commands_total{command="showzone"`) {
			n += v
		}
	}
	return n
}

// TestZoneGetCached: a zone GET read once answers from the zone cache
// (zoneservice/zonecache.go) without asking named (zonestatus,
// showzone), and what it answers stays named's: after a record change,
// a freeze and a thaw through the API (the next GET), a change made
// behind the API's back with nsupdate (once named's NOTIFY has reached
// the history's listener) and a delete (the next GET is 404). Each GET's
// name, serial, nodes, state, loaded, dynamic, lastLoaded and file are
// compared with named's own zonestatus. Before the cache every zone GET
// asked named both commands.
func TestZoneGetCached(t *testing.T) {
	ns, port := historyNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf("history {\n\t\t\t\tnotify_listen 127.0.0.1:%d\n\t\t\t}", port)})
	key, err := rndc.NewKey(ns.RNDCKeyName, ns.RNDCAlgorithm, ns.RNDCSecret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &rndc.Client{Addr: ns.ControlAddr, Key: key, Timeout: 5 * time.Second, MaxIdle: -1}
	defer rc.Close()
	const zone = "cache.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	// What named completes after an operation answered (a zone's load)
	// is not cached for 2 s after it (zoneSettle).
	settle := func() { time.Sleep(2100 * time.Millisecond) }

	// get answers the zone GET and checks it against named's zonestatus.
	get := func(what string) map[string]any {
		t.Helper()
		r := c.do("GET", "/api/v1/zones/"+zone, nil)
		expect(t, r, http.StatusOK, what)
		st, err := rc.ZoneStatus(context.Background(), zone)
		if err != nil {
			t.Fatal(err)
		}
		state := "active"
		if st.Frozen {
			state = "frozen"
		}
		want := map[string]any{"name": st.Name, "serial": float64(st.Serial), "nodes": float64(st.Nodes), "state": state, "loaded": st.Loaded,
			"dynamic": st.Dynamic, "lastLoaded": st.LastLoaded, "filePath": st.Files[0]}
		for k, v := range want {
			if r.body[k] != v {
				t.Errorf("%s: %s %v; named says %v", what, k, r.body[k], v)
			}
		}
		return r.body
	}
	settle()
	get("first GET")
	before := zoneReads(t, c)
	for range 5 {
		r := c.do("GET", "/api/v1/zones/"+zone, nil)
		expect(t, r, http.StatusOK, "cached GET")
	}
	if n := zoneReads(t, c) - before; n != 0 {
		t.Errorf("5 GETs of a zone read before sent named %.0f zonestatus/showzone commands; want 0", n)
	}

	// A record change: the serial and the nodes move.
	serial := get("before the record change")["serial"]
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "new", "type": "A", "value": "192.0.2.9", "ttl": 60}), http.StatusCreated, "add record")
	if b := get("after a record change"); b["serial"] == serial {
		t.Errorf("after a record change: serial %v unchanged", serial)
	}
	// Freeze and thaw.
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/freeze", nil), http.StatusOK, "freeze")
	if b := get("after freeze"); b["state"] != "frozen" {
		t.Errorf("after freeze: state %v", b["state"])
	}
	settle()
	get("frozen, cached")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/thaw", nil), http.StatusOK, "thaw")
	if b := get("after thaw"); b["state"] != "active" {
		t.Errorf("after thaw: state %v", b["state"])
	}
	settle()

	// Behind the API's back: nsupdate. named's NOTIFY drops the cached
	// state; until it arrives, a GET may answer the serial before.
	serial = get("before nsupdate")["serial"]
	before = zoneReads(t, c)
	get("cached before nsupdate")
	if n := zoneReads(t, c) - before; n != 0 {
		t.Errorf("a GET of a cached zone sent %.0f commands", n)
	}
	nsupdateView(t, ns, ns.TSIGKeyFile, zone, "update add hand."+zone+". 60 IN A 192.0.2.77\n")
	// Well within the cache's max age (a minute), after which it would
	// be seen without the NOTIFY.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if r := c.do("GET", "/api/v1/zones/"+zone, nil); r.status == http.StatusOK && r.body["serial"] != serial {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the zone GET answers serial %v 10 s after nsupdate moved it", serial)
		}
	}
	get("after nsupdate")

	// A delete.
	expect(t, c.do("DELETE", "/api/v1/zones/"+zone, nil), http.StatusOK, "delete")
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), http.StatusNotFound, "GET after delete")
}
