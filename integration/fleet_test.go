package integration

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// waitFor polls cond until it holds; it fails the test after a generous
// deadline (a hang guard, not a timing assertion) and returns how long it
// took.
func waitFor(t testing.TB, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for deadline := start.Add(60 * time.Second); ; {
		if cond() {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// soaOn returns zone's SOA serial as ns serves it, and whether ns serves
// it with authority.
func soaOn(ns *testbind.Server, zone string) (uint32, bool) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(zone), dns.TypeSOA)
	cl := &dns.Client{Timeout: time.Second}
	in, _, err := cl.Exchange(m, ns.DNSAddr)
	if err != nil || in.Rcode != dns.RcodeSuccess || !in.Authoritative {
		return 0, false
	}
	for _, rr := range in.Answer {
		if soa, ok := rr.(*dns.SOA); ok {
			return soa.Serial, true
		}
	}
	return 0, false
}

// aOn returns the A records of name that ns serves.
func aOn(ns *testbind.Server, name string) []string {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeA)
	cl := &dns.Client{Timeout: time.Second}
	in, _, err := cl.Exchange(m, ns.DNSAddr)
	if err != nil {
		return nil
	}
	return answers(in, dns.TypeA)
}

// startFleet starts a primary and a secondary named and a Caddy managing
// the primary with a catalog the secondary consumes.
func startFleet(t testing.TB) (*testbind.Pair, *caddy) {
	t.Helper()
	pair := testbind.StartPair(t, "catalog.fleet.test")
	c := startCaddy(t, pair.Primary, caddyOpts{extra: fmt.Sprintf("catalog catalog.fleet.test {\n\t\t\t\tgroup fleet\n\t\t\t\talso_notify %s\n\t\t\t}", pair.Secondary.DNSAddr)})
	return pair, c
}

// TestFleet: a zone created through the API reaches a secondary that is
// configured only as a catalog consumer; record changes follow by NOTIFY
// and IXFR; a deleted zone leaves the secondary; a secondary zone created
// through the API transfers from its primary, and retransfer works.
func TestFleet(t *testing.T) {
	t.Parallel()
	pair, c := startFleet(t)
	sec := pair.Secondary
	secConf, err := os.ReadFile(sec.ConfFile)
	if err != nil {
		t.Fatal(err)
	}

	// Create: the zone answers on the secondary, which was never told.
	const zone = "one.fleet.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	took := waitFor(t, "the new zone answering SOA on the secondary", func() bool {
		s, ok := soaOn(sec, zone)
		return ok && s == 2026112501
	})
	t.Logf("zone created through the API answers on the secondary after %v", took)

	// A record add reaches the secondary: serials equal.
	r := c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "new", "type": "A", "value": "192.0.2.99"})
	expect(t, r, http.StatusCreated, "record add")
	want, _ := soaOn(pair.Primary, zone)
	if want <= 2026112501 {
		t.Fatalf("primary serial after the add = %d", want)
	}
	took = waitFor(t, "the record on the secondary", func() bool {
		s, _ := soaOn(sec, zone)
		return s == want && strings.Join(aOn(sec, "new."+zone), ",") == "192.0.2.99"
	})
	t.Logf("record add reaches the secondary after %v (serial %d)", took, want)

	// NOTIFY answers the serial sent and the servers notified: the
	// catalog's secondary, and the zone's also-notify (a server that is
	// not there is reported without acknowledgement).
	expect(t, c.do("PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{"127.0.0.1:9"}}), http.StatusOK, "PATCH alsoNotify")
	r = c.do("POST", "/api/v1/zones/"+zone+"/notify", nil)
	expect(t, r, http.StatusOK, "notify")
	if r.body["serial"] != float64(want) || r.str("details") != "zone notify queued" {
		t.Errorf("notify = %s, want serial %d", r.raw, want)
	}
	servers := toSlice(r.body["servers"])
	if len(servers) != 2 {
		t.Fatalf("notified %s", r.raw)
	}
	for _, s := range servers {
		m := s.(map[string]any)
		switch m["server"] {
		case sec.DNSAddr:
			if m["source"] != "catalog" || m["acknowledged"] != true || m["rcode"] != "NOERROR" {
				t.Errorf("secondary: %v", m)
			}
		case "127.0.0.1:9":
			if m["source"] != "also-notify" || m["acknowledged"] == true {
				t.Errorf("absent server: %v", m)
			}
		default:
			t.Errorf("unexpected server %v", m)
		}
	}
	expectError(t, c.do("POST", "/api/v1/zones/nope.fleet.test/notify", nil), 404, "Not Found", "nope.fleet.test")

	// The catalog lists the zone, with its group, and nothing else.
	r = c.do("GET", "/api/v1/catalog", nil)
	expect(t, r, http.StatusOK, "GET catalog")
	if r.body["count"] != float64(1) || !strings.Contains(string(r.raw), `"zone":"one.fleet.test"`) || !strings.Contains(string(r.raw), `"group":"fleet"`) {
		t.Errorf("catalog = %s", r.raw)
	}
	// The catalog zone itself is not deletable through the zone routes.
	expectError(t, c.do("DELETE", "/api/v1/zones/catalog.fleet.test", nil), 409, "Conflict", "catalog")

	// A secondary zone created through the API transfers from its
	// primary (here a zone the other named serves) and shows its serial;
	// retransfer fetches a new version.
	const upstream = "up.fleet.test"
	path, err := sec.WriteZone(upstream, testbind.MinimalZone(upstream, 7))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sec.RNDC("addzone", upstream, fmt.Sprintf(`{ type primary; file %q; };`, path)); err != nil {
		t.Fatal(err)
	}
	r = c.do("POST", "/api/v1/zones", map[string]any{
		"zoneName": upstream, "zoneType": "secondary",
		"zoneConfig": map[string]any{"primaries": []string{sec.DNSAddr}},
	})
	expect(t, r, http.StatusCreated, "create secondary")
	waitFor(t, "the secondary zone's first transfer", func() bool {
		r := c.do("GET", "/api/v1/zones/"+upstream, nil)
		return r.status == 200 && r.body["serial"] == float64(7)
	})
	if cfg := configOf(t, c, upstream); cfg["type"] != "secondary" || strs(cfg["primaries"])[0] != sec.DNSAddr {
		t.Errorf("secondary config = %v", cfg)
	}
	// PATCH changes a secondary's primaries (with a TSIG key), keeping
	// its other clauses; then back.
	keyed := sec.DNSAddr + " key zoneapi-update"
	r = c.do("PATCH", "/api/v1/zones/"+upstream, map[string]any{"primaries": []string{keyed}})
	expect(t, r, http.StatusOK, "PATCH primaries")
	if sz := showzone(t, c, upstream); !strings.Contains(sz, `primaries { 127.0.0.1 port `+portOf(sec.DNSAddr)+` key "zoneapi-update"; };`) || !strings.Contains(sz, "type secondary;") {
		t.Errorf("after PATCH primaries: %s", sz)
	}
	expect(t, c.do("PATCH", "/api/v1/zones/"+upstream, map[string]any{"primaries": []string{sec.DNSAddr}}), http.StatusOK, "PATCH primaries back")
	if _, err := sec.WriteZone(upstream, testbind.MinimalZone(upstream, 8)); err != nil {
		t.Fatal(err)
	}
	if _, err := sec.RNDC("reload", upstream); err != nil {
		t.Fatal(err)
	}
	r = c.do("POST", "/api/v1/zones/"+upstream+"/retransfer", nil)
	expect(t, r, http.StatusOK, "retransfer")
	waitFor(t, "serial 8 after retransfer", func() bool {
		r := c.do("GET", "/api/v1/zones/"+upstream, nil)
		return r.status == 200 && r.body["serial"] == float64(8)
	})

	// Delete: the zone disappears from the secondary.
	expect(t, c.do("DELETE", "/api/v1/zones/"+zone, nil), http.StatusOK, "delete")
	took = waitFor(t, "the deleted zone gone from the secondary", func() bool {
		_, ok := soaOn(sec, zone)
		return !ok
	})
	t.Logf("deleted zone leaves the secondary after %v", took)

	after, err := os.ReadFile(sec.ConfFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(secConf) {
		t.Error("the secondary's named.conf changed")
	}
}
