package integration

import (
	"bytes"
	"net/http"
	"testing"
	"time"
)

// TestPowerDNSZoneGetCached: the PowerDNS API's zone GET reads the zone
// through the zone cache as the zone API's does (zoneservice's
// CachedZoneAndStatement): once read, GETs send named no zonestatus or
// showzone, and their bodies are byte for byte those of the GET that
// asked named; a PATCH through the PowerDNS API is seen by the next GET
// (its serial). Before, every PowerDNS zone GET asked named both
// commands (2 a GET).
func TestPowerDNSZoneGetCached(t *testing.T) {
	c := startPDNS(t, "")
	const zone = "pdnscache.test."
	createPDNSZone(t, c, zone, nil)
	// Nothing is cached of a zone for 2 s after an operation on it
	// (zoneSettle).
	time.Sleep(2100 * time.Millisecond)

	get := func(query string) *response {
		t.Helper()
		r := c.pdns(pdnsKey, "GET", zonesPath+"/"+zone+query, nil)
		expect(t, r, http.StatusOK, "GET "+query)
		return r
	}
	first := get("?rrsets=false")
	full := get("")
	before := zoneReads(t, c)
	for range 5 {
		if r := get("?rrsets=false"); !bytes.Equal(r.raw, first.raw) {
			t.Errorf("cached GET: %s\nwant (read from named) %s", r.raw, first.raw)
		}
	}
	if r := get(""); !bytes.Equal(r.raw, full.raw) {
		t.Errorf("cached GET with rrsets: %s\nwant %s", r.raw, full.raw)
	}
	if n := zoneReads(t, c) - before; n != 0 {
		t.Errorf("6 PowerDNS GETs of a zone read before sent named %.0f zonestatus/showzone commands; want 0", n)
	}

	// A record change through the PowerDNS API moves the serial the next
	// GET answers.
	serial := first.body["serial"]
	expect(t, pdnsPatch(c, zone, rrset("new."+zone, "A", "REPLACE", 60, "192.0.2.9")), http.StatusNoContent, "PATCH")
	if r := get("?rrsets=false"); r.body["serial"] == serial {
		t.Errorf("after a PATCH the GET answers serial %v, unchanged", serial)
	}
}
