package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// The PowerDNS API's fidelity tests: each is written from PowerDNS's
// documented behaviour (the 5.x OpenAPI document, the HTTP API docs and
// PowerDNS's own regression-tests.api/test_Zones.py, whose test names
// are cited) and runs through the built Caddy against a real named.

const pdnsKey = "pdns-test-key-4f2a"

// startPDNS starts named and a Caddy serving zone_api with powerdns.
func startPDNS(t *testing.T, extra string) *caddy {
	t.Helper()
	ns := startNamed(t)
	return startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns\n" + extra})
}

// pdns sends a PowerDNS request with X-API-Key (key "" sends none).
func (c *caddy) pdns(key, method, path string, body any) *response {
	c.t.Helper()
	hdr := map[string]string{"Accept": "application/json"}
	if key != "" {
		hdr["X-API-Key"] = key
	}
	return c.send(method, path, body, hdr)
}

const zonesPath = "/api/v1/servers/localhost/zones"

// pdnsError checks a PowerDNS error answer: the status, a JSON body whose
// only key is error, holding part.
func pdnsError(t *testing.T, r *response, status int, part string) {
	t.Helper()
	expect(t, r, status, part)
	if len(r.body) != 1 || !strings.Contains(r.str("error"), part) {
		t.Errorf("body %s: want {\"error\": …%q…}", r.raw, part)
	}
}

// createPDNSZone creates a Native zone with two name servers (the
// regression tests' create_zone helper).
func createPDNSZone(t *testing.T, c *caddy, name string, extra map[string]any) *response {
	t.Helper()
	body := map[string]any{"name": name, "kind": "Native", "nameservers": []string{"ns1.example.com.", "ns2.example.com."}}
	for k, v := range extra {
		body[k] = v
	}
	r := c.pdns(pdnsKey, "POST", zonesPath, body)
	expect(t, r, http.StatusCreated, "create "+name)
	return r
}

// rrsetOf finds an RRset in a zone body.
func rrsetOf(r *response, name, typ string) map[string]any {
	sets, _ := r.body["rrsets"].([]any)
	for _, s := range sets {
		m := s.(map[string]any)
		if m["name"] == name && m["type"] == typ {
			return m
		}
	}
	return nil
}

func contents(set map[string]any) []string {
	var out []string
	if set == nil {
		return nil
	}
	for _, rec := range set["records"].([]any) {
		out = append(out, rec.(map[string]any)["content"].(string))
	}
	slices.Sort(out)
	return out
}

func pdnsSerial(t *testing.T, c *caddy, zone string) uint32 {
	t.Helper()
	r := c.pdns(pdnsKey, "GET", zonesPath+"/"+zone+"?rrsets=false", nil)
	expect(t, r, 200, "get "+zone)
	return uint32(r.body["serial"].(float64))
}

func pdnsPatch(c *caddy, zone string, sets ...map[string]any) *response {
	c.t.Helper()
	return c.pdns(pdnsKey, "PATCH", zonesPath+"/"+zone, map[string]any{"rrsets": sets})
}

func rrset(name, typ, ct string, ttl int, contents ...string) map[string]any {
	s := map[string]any{"name": name, "type": typ, "changetype": ct}
	if ttl > 0 {
		s["ttl"] = ttl
	}
	if contents != nil {
		recs := []map[string]any{}
		for _, c := range contents {
			recs = append(recs, map[string]any{"content": c, "disabled": false})
		}
		s["records"] = recs
	}
	return s
}

// TestPowerDNSDiscovery: GET /api, /api/v1, /servers, /servers/localhost
// (test_Discovery.py, test_Servers.py), and the key: none is 401 in
// PowerDNS's error shape.
func TestPowerDNSDiscovery(t *testing.T) {
	c := startPDNS(t, "")
	r := c.pdns(pdnsKey, "GET", "/api", nil)
	expect(t, r, 200, "GET /api")
	if !strings.Contains(string(r.raw), `"url":"/api/v1"`) || !strings.Contains(string(r.raw), `"version":1`) {
		t.Errorf("GET /api = %s", r.raw)
	}
	expect(t, c.pdns(pdnsKey, "GET", "/api/v1", nil), 200, "GET /api/v1")
	r = c.pdns(pdnsKey, "GET", "/api/v1/servers", nil)
	expect(t, r, 200, "GET /servers")
	if !strings.Contains(string(r.raw), `"id":"localhost"`) {
		t.Errorf("servers = %s", r.raw)
	}
	r = c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost", nil)
	expect(t, r, 200, "GET /servers/localhost")
	if r.str("daemon_type") != "authoritative" || r.str("type") != "Server" || !strings.HasPrefix(r.str("version"), "4.") || r.str("zones_url") == "" {
		t.Errorf("server = %s", r.raw)
	}
	pdnsError(t, c.pdns("", "GET", zonesPath, nil), http.StatusUnauthorized, "Missing X-API-Key header")
	pdnsError(t, c.pdns(pdnsKey, "GET", "/api/v1/servers/otherhost/zones", nil), http.StatusNotFound, "no such endpoint")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath+"/x.test./notify", nil), http.StatusMethodNotAllowed, "not allowed")
	// The zone API next to it answers in its own shape.
	r = c.do("GET", "/api/v1/zones", nil)
	expect(t, r, 200, "zone API list")
}

// TestPowerDNSZoneLifecycle: create, list, get, PUT, delete
// (test_create_zone, test_create_zone_exists, test_list_zones,
// test_get_zone, test_rrset_false_parameter, test_wrong_rrset_parameter,
// test_zone_delete, test_update_zone; the create_zone failures).
func TestPowerDNSZoneLifecycle(t *testing.T) {
	c := startPDNS(t, "")
	r := createPDNSZone(t, c, "life.test.", map[string]any{"serial": 22, "soa_edit_api": "", "account": "", "unknown_field": 1})
	for _, k := range []string{"id", "url", "name", "masters", "kind", "last_check", "notified_serial", "serial", "edited_serial", "soa_edit_api", "soa_edit", "account", "dnssec"} {
		if _, ok := r.body[k]; !ok {
			t.Errorf("created zone lacks %q: %s", k, r.raw)
		}
	}
	if r.str("id") != "life.test." || r.str("name") != "life.test." || r.str("kind") != "Native" || r.body["serial"].(float64) != 22 {
		t.Errorf("created zone = %s", r.raw)
	}
	if got := contents(rrsetOf(r, "life.test.", "NS")); !slices.Equal(got, []string{"ns1.example.com.", "ns2.example.com."}) {
		t.Errorf("NS = %v", got)
	}
	if soa := contents(rrsetOf(r, "life.test.", "SOA")); len(soa) != 1 || !strings.Contains(soa[0], "hostmaster.life.test. 22 ") {
		t.Errorf("SOA = %v", soa)
	}
	if got := answers(query(t, c.ns, "life.test", dns.TypeNS), dns.TypeNS); len(got) != 2 {
		t.Errorf("named serves NS %v", got)
	}
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "life.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), http.StatusConflict, "already exists")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "", "kind": "Native"}), 422, "is not canonical")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "nodot.test", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), 422, "is not canonical")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "uncanon.test.", "kind": "Native", "nameservers": []string{"uncanon.example.com"}}), 422, "Nameserver is not canonical")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "test..double.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), 422, "Unable to parse DNS Name")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "test:x.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), 422, "contains unsupported characters")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "mixed.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."},
		"rrsets": []any{rrset("mixed.test.", "NS", "", 3600, "ns2.example.com.")}}), 422, "Nameservers list MUST NOT be mixed with zone-level NS in rrsets")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "prod.test.", "kind": "Producer", "nameservers": []string{"ns1.example.com."}}), 422, "Producer")
	// A name server inside the zone needs its address (BIND does not load
	// the zone otherwise): refused without, accepted with it in rrsets.
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "glue.test.", "kind": "Native", "nameservers": []string{"ns1.glue.test."}}), 422, "give its A or AAAA record in rrsets")
	expect(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "glue.test.", "kind": "Native", "nameservers": []string{"ns1.glue.test."},
		"rrsets": []any{rrset("ns1.glue.test.", "A", "", 3600, "192.0.2.53")}}), 201, "in-zone NS with its address")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "badrec.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."},
		"rrsets": []any{rrset("www.badrec.test.", "A", "", 3600, "not-an-address")}}), 422, "RRset www.badrec.test. IN A")
	if r := c.pdns(pdnsKey, "GET", zonesPath+"/mixed.test.", nil); r.status != 404 {
		t.Errorf("a refused create left zone mixed.test: %d", r.status)
	}

	// Create with rrsets (test_create_zone_with_records,
	// test_create_zone_with_wildcard_records) and rrsets=false
	// (test_rrset_parameter_post_false).
	r = c.pdns(pdnsKey, "POST", zonesPath+"?rrsets=false", map[string]any{"name": "with.test.", "kind": "Master", "nameservers": []string{"ns1.example.com."},
		"rrsets": []any{rrset("with.test.", "A", "", 3600, "4.3.2.1"), rrset("*.with.test.", "A", "", 3600, "4.3.2.2")}})
	expect(t, r, 201, "create with rrsets")
	if _, ok := r.body["rrsets"]; ok {
		t.Errorf("rrsets=false answered rrsets: %s", r.raw)
	}
	if got := answers(query(t, c.ns, "anything.with.test", dns.TypeA), dns.TypeA); !slices.Equal(got, []string{"4.3.2.2"}) {
		t.Errorf("wildcard A = %v", got)
	}

	// List (test_list_zones, test_find_zone_by_name).
	r = c.pdns(pdnsKey, "GET", zonesPath, nil)
	expect(t, r, 200, "list")
	if !strings.Contains(string(r.raw), `"name":"life.test."`) || !strings.Contains(string(r.raw), `"name":"with.test."`) || strings.Contains(string(r.raw), `"rrsets"`) ||
		!strings.Contains(string(r.raw), `"dnssec":false`) || !strings.Contains(string(r.raw), `"edited_serial"`) || !strings.Contains(string(r.raw), `"last_check"`) {
		t.Errorf("list = %s", r.raw)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"?zone=life.test.&dnssec=false", nil)
	if r.status != 200 || strings.Count(string(r.raw), `"id"`) != 1 || !strings.Contains(string(r.raw), `"serial":22`) || strings.Contains(string(r.raw), `"dnssec"`) {
		t.Errorf("?zone=life.test. = %d %s", r.status, r.raw)
	}
	if r := c.pdns(pdnsKey, "GET", zonesPath+"?zone=missing.test.", nil); r.status != 200 || strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("?zone=missing.test. = %d %s", r.status, r.raw)
	}

	// Get (test_get_zone, rrsets=false/true/foobar, rrset_name/type).
	r = c.pdns(pdnsKey, "GET", zonesPath+"/life.test.", nil)
	expect(t, r, 200, "get")
	if len(r.body["rrsets"].([]any)) != 2 {
		t.Errorf("rrsets of a new zone: %s", r.raw)
	}
	for _, set := range r.body["rrsets"].([]any) {
		m := set.(map[string]any)
		if m["comments"] == nil || m["ttl"] == nil || m["records"] == nil {
			t.Errorf("rrset shape %v", m)
		}
	}
	if r := c.pdns(pdnsKey, "GET", zonesPath+"/life.test?rrsets=false", nil); r.status != 200 || r.body["rrsets"] != nil {
		t.Errorf("rrsets=false (id without its dot) = %d %s", r.status, r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", zonesPath+"/life.test.?rrsets=foobar", nil), 422, "'rrsets' request parameter value 'foobar' is not supported")
	r = c.pdns(pdnsKey, "GET", zonesPath+"/life.test.?rrset_name=life.test.&rrset_type=NS", nil)
	if sets := r.body["rrsets"].([]any); len(sets) != 1 {
		t.Errorf("rrset_name+type: %s", r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", zonesPath+"/missing.test.", nil), 404, "Could not find domain 'missing.test.'")

	// PUT (test_update_zone): attributes with no BIND meaning are
	// accepted; a kind change between Master and Slave is refused.
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/life.test.", map[string]any{"kind": "Native", "soa_edit_api": "EPOCH", "soa_edit": "", "api_rectify": false, "account": "x"})
	expect(t, r, 204, "PUT attributes")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/life.test.", map[string]any{"kind": "Slave", "masters": []string{"192.0.2.1"}}), 422, "kind")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/missing.test.", map[string]any{"kind": "Native"}), 404, "Could not find domain")
	// test_put_master_tsig_key_ids_non_existent and the slave one.
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/life.test.", map[string]any{"master_tsig_key_ids": []string{"nokey"}}), 422, "A TSIG key with the name 'nokey'")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/life.test.", map[string]any{"slave_tsig_key_ids": []string{"nokey"}}), 422, "A TSIG key with the name 'nokey'")
	// An existing zone is 409 even when the request has other faults
	// (test_create_zone_exists sends no nameservers); a value of the
	// wrong type is 422 (test_create_zone_with_nameservers_non_string).
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "life.test.", "kind": "Native"}), http.StatusConflict, "already exists")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "types.test.", "kind": "Native", "nameservers": []any{map[string]any{"a": "ns1.example.com"}}}), 422, "nameservers")

	// Delete (test_zone_delete): 204 without a body or Content-Type.
	r = c.pdns(pdnsKey, "DELETE", zonesPath+"/with.test.", nil)
	expect(t, r, 204, "delete")
	if len(r.raw) != 0 || r.header.Get("Content-Type") != "" {
		t.Errorf("delete answered %q with Content-Type %q", r.raw, r.header.Get("Content-Type"))
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", zonesPath+"/with.test.", nil), 404, "Could not find domain")
	if m := query(t, c.ns, "with.test", dns.TypeSOA); m.Rcode != dns.RcodeRefused {
		t.Errorf("named still serves with.test: %s", dns.RcodeToString[m.Rcode])
	}
	pdnsError(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/with.test.", nil), 404, "Could not find domain")
}

// TestPowerDNSSecondary: a Slave zone with masters (test_create_slave_zone,
// test_retrieve_slave_zone, test_delete_slave_zone) and notify on a
// Master (test_notify_master_zone).
func TestPowerDNSSecondary(t *testing.T) {
	c := startPDNS(t, "")
	createPDNSZone(t, c, "prim.test.", nil)
	r := c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "sec.test.", "kind": "Slave", "masters": []string{"127.0.0.2"}})
	expect(t, r, 201, "create Slave")
	if r.str("kind") != "Slave" || fmt.Sprint(r.body["masters"]) != "[127.0.0.2]" || len(r.body["rrsets"].([]any)) != 0 {
		t.Errorf("slave zone = %s", r.raw)
	}
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/sec.test./axfr-retrieve", nil)
	expect(t, r, 200, "axfr-retrieve")
	if r.str("result") != "Added retrieval request for 'sec.test.' from primary 127.0.0.2" {
		t.Errorf("axfr-retrieve = %s", r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/prim.test./axfr-retrieve", nil), 422, "is not a slave domain")
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/prim.test./notify", nil)
	if r.status != 200 || r.str("result") != "Notification queued" {
		t.Errorf("notify = %d %s", r.status, r.raw)
	}
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/sec.test.", nil), 204, "delete Slave")
}

// TestPowerDNSPatch: the PATCH rules (test_zone_rr_update*,
// test_zone_rr_delete*, test_rrset_*, the OpenAPI RRSet.changetype text),
// each checked against what named serves, with one serial bump per
// request and nothing changed by a refused one.
func TestPowerDNSPatch(t *testing.T) {
	c := startPDNS(t, "")
	const z = "patch.test."
	createPDNSZone(t, c, z, nil)
	served := func(name string, qtype uint16) []string {
		got := answers(query(t, c.ns, name, qtype), qtype)
		slices.Sort(got)
		return got
	}

	// REPLACE of two RRsets is one UPDATE: one serial bump; 204 with
	// PowerDNS's serial headers.
	before := pdnsSerial(t, c, z)
	r := pdnsPatch(c, z, rrset("www."+z, "A", "replace", 300, "192.0.2.1", "192.0.2.2"),
		rrset(z, "MX", "REPLACE", 3600, "10 mail.example.org."), rrset("txt."+z, "TXT", "REPLACE", 60, `"hello world"`, `"a \"quoted\" word"`))
	expect(t, r, 204, "replace")
	if len(r.raw) != 0 {
		t.Errorf("204 with a body %q", r.raw)
	}
	after := pdnsSerial(t, c, z)
	if after != before+1 || r.header.Get("X-PDNS-New-Serial") != strconv.FormatUint(uint64(after), 10) || r.header.Get("X-PDNS-Old-Serial") != strconv.FormatUint(uint64(before), 10) {
		t.Errorf("serial %d -> %d (headers %s -> %s), want one bump", before, after, r.header.Get("X-PDNS-Old-Serial"), r.header.Get("X-PDNS-New-Serial"))
	}
	if got := served("www."+z, dns.TypeA); !slices.Equal(got, []string{"192.0.2.1", "192.0.2.2"}) {
		t.Errorf("www A = %v", got)
	}
	if got := served(z, dns.TypeMX); !slices.Equal(got, []string{"10 mail.example.org."}) {
		t.Errorf("MX = %v", got)
	}
	if got := served("txt."+z, dns.TypeTXT); !slices.Equal(got, []string{`"a \"quoted\" word"`, `"hello world"`}) {
		t.Errorf("TXT = %v", got)
	}
	g := c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil)
	if got := contents(rrsetOf(g, "txt."+z, "TXT")); !slices.Equal(got, []string{`"a \"quoted\" word"`, `"hello world"`}) {
		t.Errorf("GET TXT contents = %v (PowerDNS shows TXT quoted)", got)
	}
	if set := rrsetOf(g, "www."+z, "A"); set == nil || set["ttl"].(float64) != 300 {
		t.Errorf("www A rrset = %v", set)
	}

	// REPLACE replaces the whole RRset; an empty records list deletes it.
	expect(t, pdnsPatch(c, z, rrset("www."+z, "A", "REPLACE", 300, "192.0.2.3")), 204, "replace again")
	if got := served("www."+z, dns.TypeA); !slices.Equal(got, []string{"192.0.2.3"}) {
		t.Errorf("after REPLACE www A = %v", got)
	}
	expect(t, pdnsPatch(c, z, rrset("www."+z, "A", "REPLACE", 300, []string{}...)), 204, "replace with no records")
	if got := served("www."+z, dns.TypeA); len(got) != 0 {
		t.Errorf("REPLACE with [] left %v", got)
	}

	// EXTEND adds one record (twice: still one); PRUNE removes one
	// (absent: no error).
	ext := rrset("_acme-challenge."+z, "TXT", "EXTEND", 60, `"one"`)
	expect(t, pdnsPatch(c, z, ext), 204, "extend")
	expect(t, pdnsPatch(c, z, rrset("_acme-challenge."+z, "TXT", "EXTEND", 60, `"two"`)), 204, "extend 2")
	expect(t, pdnsPatch(c, z, ext), 204, "extend again")
	if got := served("_acme-challenge."+z, dns.TypeTXT); !slices.Equal(got, []string{`"one"`, `"two"`}) {
		t.Errorf("after EXTEND = %v", got)
	}
	expect(t, pdnsPatch(c, z, rrset("_acme-challenge."+z, "TXT", "PRUNE", 0, `"one"`)), 204, "prune")
	expect(t, pdnsPatch(c, z, rrset("_acme-challenge."+z, "TXT", "PRUNE", 0, `"absent"`)), 204, "prune absent")
	if got := served("_acme-challenge."+z, dns.TypeTXT); !slices.Equal(got, []string{`"two"`}) {
		t.Errorf("after PRUNE = %v", got)
	}

	// DELETE (test_zone_rr_delete); outside the zone it succeeds
	// (test_zone_rr_delete_out_of_zone).
	expect(t, pdnsPatch(c, z, rrset("txt."+z, "TXT", "DELETE", 0)), 204, "delete")
	if got := served("txt."+z, dns.TypeTXT); len(got) != 0 {
		t.Errorf("after DELETE TXT = %v", got)
	}
	expect(t, pdnsPatch(c, z, rrset("not-in-zone.", "NS", "DELETE", 0)), 204, "delete out of zone")

	// Refusals: 422 in PowerDNS's words, and nothing changed.
	s0 := pdnsSerial(t, c, z)
	for _, tc := range []struct {
		what string
		sets []map[string]any
		want string
	}{
		{"duplicate rrset (test_zone_rr_update_duplicate_rrset)", []map[string]any{rrset(z, "NS", "REPLACE", 3600, "ns9999.example.com."), rrset(z, "NS", "REPLACE", 3600, "ns9998.example.com.")}, "Duplicate RRset"},
		{"duplicate record (test_zone_rr_update_duplicate_record)", []map[string]any{rrset(z, "NS", "REPLACE", 3600, "ns9999.example.com.", "ns9999.example.com.")}, "Duplicate record in RRset"},
		{"changetype missing", []map[string]any{{"name": "a." + z, "type": "A", "ttl": 60, "records": []any{map[string]any{"content": "192.0.2.9"}}}}, "changetype"},
		{"out of zone (test_zone_rr_update_out_of_zone)", []map[string]any{rrset("not-in-zone.", "NS", "REPLACE", 3600, "ns1.bar.com.")}, "Name is out of zone"},
		{"restricted chars", []map[string]any{rrset("test:"+z, "NS", "REPLACE", 3600, "ns1.bar.com.")}, "contains unsupported characters"},
		{"unknown type (test_rrset_unknown_type)", []map[string]any{rrset(z, "FAFAFA", "REPLACE", 3600, "4.3.2.1")}, "unknown type given"},
		{"OPT (test_zone_rr_update_opt)", []map[string]any{rrset(z, "OPT", "REPLACE", 3600, "9")}, "OPT: invalid type given"},
		{"invalid MX (test_zone_rr_update_invalid_mx)", []map[string]any{rrset(z, "MX", "REPLACE", 3600, "10 mail@mx.example.org.")}, "IN MX"},
		{"content of white space only (white space around content is dropped, as PowerDNS 4.9+ does: TestPowerDNSReplaceAndPatchParity)", []map[string]any{rrset(z, "A", "REPLACE", 3600, "  ")}, "Not in expected format"},
		{"relative name in content", []map[string]any{rrset(z, "MX", "REPLACE", 3600, "10 mail")}, "names in record content must be absolute"},
		{"two CNAMEs (test_rrset_single_qtypes)", []map[string]any{rrset("sub."+z, "CNAME", "REPLACE", 3600, "01.example.org.", "02.example.org.")}, "has more than one record"},
		{"CNAME at the apex (test_rrset_exclusive_and_other)", []map[string]any{rrset(z, "CNAME", "REPLACE", 3600, "example.org.")}, "Conflicts with pre-existing RRset"},
		{"ALIAS", []map[string]any{rrset(z, "ALIAS", "REPLACE", 3600, "lb.example.net.")}, "ALIAS"},
		{"LUA", []map[string]any{rrset("lua."+z, "LUA", "REPLACE", 3600, `A "ifportup(443, {'192.0.2.1'})"`)}, "LUA"},
		{"a disabled SOA", []map[string]any{{"name": z, "type": "SOA", "ttl": 3600, "changetype": "REPLACE", "records": []any{map[string]any{"content": "ns1.bar.com. hostmaster.foo.org. 1 1 1 1 1", "disabled": true}}}}, "disabling the SOA record is not supported"},
		{"comment modified_at out of range (test_zone_comment_out_of_range_modified_at)", []map[string]any{{"name": z, "type": "NS", "changetype": "REPLACE", "comments": []any{map[string]any{"account": "a", "content": "c", "modified_at": "4294967297"}}}}, "Key 'modified_at' is out of range"},
		{"atomic: a valid change then a conflict", []map[string]any{rrset("ok."+z, "A", "REPLACE", 60, "192.0.2.7"), rrset(z, "CNAME", "REPLACE", 60, "example.org.")}, "Conflicts with pre-existing RRset"},
		{"ttl missing", []map[string]any{{"name": "b." + z, "type": "A", "changetype": "REPLACE", "records": []any{map[string]any{"content": "192.0.2.9"}}}}, "ttl"},
	} {
		r := pdnsPatch(c, z, tc.sets...)
		if r.status != 422 || len(r.body) != 1 || !strings.Contains(r.str("error"), tc.want) {
			t.Errorf("%s: %d %s, want 422 with %q", tc.what, r.status, r.raw, tc.want)
		}
	}
	if s := pdnsSerial(t, c, z); s != s0 {
		t.Errorf("refused PATCHes moved the serial %d -> %d", s0, s)
	}
	if got := served("ok."+z, dns.TypeA); len(got) != 0 {
		t.Errorf("the refused atomic PATCH applied its first change: %v", got)
	}

	// CNAME next to other data, the other way round
	// (test_rrset_other_and_exclusive).
	expect(t, pdnsPatch(c, z, rrset("sub."+z, "CNAME", "REPLACE", 3600, "example.org.")), 204, "CNAME")
	pdnsError(t, pdnsPatch(c, z, rrset("sub."+z, "A", "REPLACE", 3600, "1.2.3.4")), 422, "Conflicts with pre-existing RRset")
	// An empty comments list and a comments-only REPLACE are fine
	// (test_zone_comment_delete).
	expect(t, pdnsPatch(c, z, map[string]any{"name": z, "type": "NS", "changetype": "REPLACE", "comments": []any{}}), 204, "comments []")
	// No rrsets, an unknown zone.
	pdnsError(t, c.pdns(pdnsKey, "PATCH", zonesPath+"/"+z, map[string]any{}), 422, "No rrsets given")
	pdnsError(t, pdnsPatch(c, "missing.test.", rrset("a.missing.test.", "A", "REPLACE", 60, "192.0.2.1")), 404, "Could not find domain")
	pdnsError(t, c.pdns(pdnsKey, "PATCH", zonesPath+"/"+z, "{"), 400, "JSON")
}

// TestPowerDNSExportSearchMetadataAndKeys: export (test_export_zone_text, test_export_zone_json),
// rectify, search-data (test_search_rr_exact_zone), statistics, metadata
// (mapped kinds; 422 for the rest: test_create_protected_zone_metadata),
// cryptokeys of an unsigned zone, PUT with rrsets (4.9+).
func TestPowerDNSExportSearchMetadataAndKeys(t *testing.T) {
	c := startPDNS(t, "")
	const z = "more.test."
	createPDNSZone(t, c, z, nil)
	expect(t, pdnsPatch(c, z, rrset("www."+z, "A", "REPLACE", 300, "192.0.2.1")), 204, "patch")

	r := c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/export", nil)
	expect(t, r, 200, "export json")
	if !strings.Contains(r.str("zone"), "www.more.test.\t300\tIN\tA\t192.0.2.1\n") {
		t.Errorf("export = %s", r.raw)
	}
	r = c.send("GET", zonesPath+"/"+z+"/export", nil, map[string]string{"X-API-Key": pdnsKey, "Accept": "*/*"})
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") || !strings.Contains(string(r.raw), "more.test.\t3600\tIN\tNS\tns1.example.com.\n") {
		t.Errorf("export text = %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}

	r = c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/rectify", nil)
	if r.status != 200 || r.str("result") != "Rectified" {
		t.Errorf("rectify = %d %s", r.status, r.raw)
	}

	r = c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/search-data?q=more.test", nil)
	expect(t, r, 200, "search-data")
	if !strings.Contains(string(r.raw), `{"object_type":"zone","name":"more.test.","zone_id":"more.test."}`) || !strings.Contains(string(r.raw), `"content":"ns1.example.com."`) {
		t.Errorf("search-data = %s", r.raw)
	}
	r = c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/search-data?q=*192.0.2.1*&object_type=record", nil)
	if !strings.Contains(string(r.raw), `"name":"www.more.test."`) || strings.Contains(string(r.raw), `"object_type":"zone"`) {
		t.Errorf("search-data records = %s", r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/search-data?q=x&object_type=bad", nil), 422, "object_type")
	pdnsError(t, c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/search-data", nil), 422, "Query q can't be blank")

	r = c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/statistics", nil)
	if r.status != 200 || !strings.Contains(string(r.raw), `"type":"StatisticItem"`) {
		t.Errorf("statistics = %d %s", r.status, r.raw)
	}

	// Metadata: ALSO-NOTIFY and ALLOW-AXFR-FROM are the zone's clauses.
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/metadata/ALSO-NOTIFY", map[string]any{"metadata": []string{"192.0.2.53"}})
	if r.status != 200 || fmt.Sprint(r.body["metadata"]) != "[192.0.2.53]" {
		t.Errorf("PUT ALSO-NOTIFY = %d %s", r.status, r.raw)
	}
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/metadata/ALLOW-AXFR-FROM", map[string]any{"metadata": []string{"192.0.2.0/24"}})
	if r.status != 200 || fmt.Sprint(r.body["metadata"]) != "[192.0.2.0/24]" {
		t.Errorf("PUT ALLOW-AXFR-FROM = %d %s", r.status, r.raw)
	}
	zr := c.do("GET", "/api/v1/zones/more.test", nil)
	if !strings.Contains(string(zr.raw), "192.0.2.53") || !strings.Contains(string(zr.raw), "192.0.2.0/24") {
		t.Errorf("the zone's configuration lacks the metadata: %s", zr.raw)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/metadata", nil)
	if !strings.Contains(string(r.raw), `"kind":"ALSO-NOTIFY"`) || !strings.Contains(string(r.raw), `"kind":"ALLOW-AXFR-FROM"`) {
		t.Errorf("metadata = %s", r.raw)
	}
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/metadata/SOA-EDIT-API", map[string]any{"metadata": []string{"EPOCH"}}), 200, "SOA-EDIT-API accepted")
	for _, k := range []string{"NSEC3PARAM", "PRESIGNED", "LUA-AXFR-SCRIPT", "NO-SUCH-KIND"} {
		pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/metadata/"+k, map[string]any{"metadata": []string{"FOO"}}), 422, "Unsupported metadata kind")
	}
	// Kinds with no BIND meaning are kept beside the zone
	// (test_create_external_zone_metadata, test_create_zone_metadata_kind).
	for _, k := range []string{"X-MYMETA", "AXFR-SOURCE"} {
		expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z+"/metadata/"+k, map[string]any{"metadata": []string{"FOO"}}), 200, k)
		if r := c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/metadata/"+k, nil); fmt.Sprint(r.body["metadata"]) != "[FOO]" {
			t.Errorf("GET %s = %s", k, r.raw)
		}
	}
	// DELETE is 204, as PowerDNS (test_delete_zone_metadata).
	r = c.pdns(pdnsKey, "DELETE", zonesPath+"/"+z+"/metadata/ALSO-NOTIFY", nil)
	if r.status != 204 {
		t.Errorf("DELETE ALSO-NOTIFY = %d %s", r.status, r.raw)
	}
	if r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/metadata/ALSO-NOTIFY", nil); fmt.Sprint(r.body["metadata"]) != "[]" {
		t.Errorf("ALSO-NOTIFY after DELETE = %s", r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", zonesPath+"/missing.test./metadata", nil), 404, "Could not find domain")
	// An unknown zone is 404 before an unsupported kind is 422
	// (test_create_metadata_in_non_existent_zone).
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath+"/idonotexist.123.456.example./metadata", map[string]any{"kind": "AXFR-SOURCE", "metadata": []string{"127.0.0.2"}}), 404, "Could not find domain")

	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/cryptokeys", nil)
	if r.status != 200 || strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("cryptokeys of an unsigned zone = %d %s", r.status, r.raw)
	}

	// PUT with rrsets replaces the content (PowerDNS 4.9, #12086); it
	// must give the SOA, as in PowerDNS, whose content BIND keeps; the
	// apex NS stays unless given.
	r = c.pdns(pdnsKey, "PUT", zonesPath+"/"+z, map[string]any{"rrsets": []any{rrset(z, "SOA", "", 3600, "invalid. hostmaster.invalid. 1 10800 3600 604800 3600"), rrset("new."+z, "A", "", 60, "192.0.2.99")}})
	expect(t, r, 204, "PUT rrsets")
	g := c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil)
	if rrsetOf(g, "www."+z, "A") != nil || rrsetOf(g, "new."+z, "A") == nil || rrsetOf(g, z, "NS") == nil || rrsetOf(g, z, "SOA") == nil {
		t.Errorf("after PUT rrsets: %s", g.raw)
	}
}

// TestPowerDNSAuth: X-API-Key goes through the configured auth mode as a
// bearer token does: a static token is accepted as X-API-Key, an unknown
// one is 401, a read-only one 403 for changes, and nothing changes; every
// change has its audit line naming the principal, and the metrics label
// the route template. Errors are PowerDNS's {"error": "…"}.
func TestPowerDNSAuth(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "ro")
	extra := fmt.Sprintf(`powerdns
			auth static {
				token admin %s
				token ro %s {
					actions read
				}
			}`, hash["admin"], hash["ro"])
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: extra})
	body := map[string]any{"name": "auth.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}
	pdnsError(t, c.pdns("wrong-key", "POST", zonesPath, body), 401, "")
	pdnsError(t, c.pdns(tok["ro"], "POST", zonesPath, body), 403, `lacks the "zones" action`)
	expect(t, c.pdns(tok["admin"], "POST", zonesPath, body), 201, "admin creates")
	expect(t, c.pdns(tok["ro"], "GET", zonesPath+"/auth.test.", nil), 200, "ro reads")
	set := map[string]any{"rrsets": []any{rrset("www.auth.test.", "A", "REPLACE", 60, "192.0.2.1")}}
	pdnsError(t, c.pdns(tok["ro"], "PATCH", zonesPath+"/auth.test.", set), 403, `lacks the "records" action`)
	if got := answers(query(t, ns, "www.auth.test", dns.TypeA), dns.TypeA); len(got) != 0 {
		t.Errorf("a refused PATCH changed the zone: %v", got)
	}
	expect(t, c.pdns(tok["admin"], "PATCH", zonesPath+"/auth.test.", set), 204, "admin patches")
	// The same token as a bearer token works on the PowerDNS routes too.
	expect(t, c.doAuth("GET", zonesPath, nil, "Bearer "+tok["ro"]), 200, "bearer on a PowerDNS route")

	var audits []string
	for _, e := range moduleLogs(t, c) {
		if e.s("message") == "audit" {
			audits = append(audits, e.s("principal")+" "+e.s("action")+" "+e.s("zone")+" "+e.s("result"))
		}
	}
	for _, want := range []string{"static:admin create auth.test success", "static:ro create  error",
		"static:admin record_batch auth.test success", "static:ro record_batch auth.test error"} {
		if !slices.Contains(audits, want) {
			t.Errorf("no audit line %q in %q", want, audits)
		}
	}
	m := scrape(t, c)
	for k, v := range map[string]float64{
		`zoneapi_http_requests_total{method="PATCH",route="/api/v1/servers/localhost/zones/{name}",status="204"}`: 1,
		`zoneapi_http_requests_total{method="PATCH",route="/api/v1/servers/localhost/zones/{name}",status="403"}`: 1,
		`zoneapi_http_requests_total{method="POST",route="/api/v1/servers/localhost/zones",status="401"}`:         1,
		`zoneapi_zone_operations_total{operation="record_batch",result="success"}`:                                1,
	} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	for name, v := range tok {
		if strings.Contains(c.Log(), v) {
			t.Errorf("the %s token appears in the log", name)
		}
	}
}

// TestPowerDNSRateLimit: the rate limit of an identity counts its
// requests whichever header carries its token; past it, 429 with
// Retry-After in PowerDNS's error shape.
func TestPowerDNSRateLimit(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "a")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: fmt.Sprintf("powerdns\n\t\t\tauth static {\n\t\t\t\ttoken a %s\n\t\t\t}\n\t\t\trate_limit 3 1h", hash["a"])})
	expect(t, c.pdns(tok["a"], "GET", zonesPath, nil), 200, "1")
	expect(t, c.as(tok["a"], "GET", "/api/v1/zones", nil), 200, "2, as a bearer token on the zone API")
	expect(t, c.pdns(tok["a"], "GET", zonesPath, nil), 200, "3")
	r := c.pdns(tok["a"], "GET", zonesPath, nil)
	pdnsError(t, r, http.StatusTooManyRequests, "rate limit of static:a")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// TestPowerDNSCryptokeys: PUT dnssec true signs the zone with BIND's
// default dnssec-policy; cryptokeys then lists the key BIND made (a CSK
// with its DS), which is what DNSControl's AUTODNSSEC reads
// (test_create_zone_with_dnssec's expectations: one active csk). As with
// PowerDNS, whose secure-zone makes the keys before it answers, the keys
// are there when the create or PUT has answered: no client polls for them.
func TestPowerDNSCryptokeys(t *testing.T) {
	c := startPDNS(t, "")
	// keysAfter reads zone's keys right after the request that signed it
	// answered, in took. The API waits for named to publish them for at
	// most 10 s (zoneservice.keysWait) and then answers without them, as
	// documented: only an answer as slow as that may come before the keys
	// (named was slow, not the API), and the keys are then waited for.
	keysAfter := func(zone string, took time.Duration) []map[string]any {
		t.Helper()
		r := c.pdns(pdnsKey, "GET", zonesPath+"/"+zone+"/cryptokeys", nil)
		expect(t, r, 200, "cryptokeys of "+zone)
		var keys []map[string]any
		_ = json.Unmarshal(r.raw, &keys)
		if len(keys) > 0 || took < 9*time.Second {
			return keys
		}
		t.Logf("named had not published the keys of %s when the API answered, after %v: waiting for them", zone, took)
		for deadline := time.Now().Add(60 * time.Second); len(keys) == 0 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
			r = c.pdns(pdnsKey, "GET", zonesPath+"/"+zone+"/cryptokeys", nil)
			keys = nil
			_ = json.Unmarshal(r.raw, &keys)
		}
		return keys
	}
	const z = "signed.test."
	createPDNSZone(t, c, z, nil)
	t0 := time.Now()
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z, map[string]any{"dnssec": true}), 204, "PUT dnssec true")
	keys := keysAfter(z, time.Since(t0))
	if len(keys) != 1 {
		t.Fatalf("cryptokeys right after PUT dnssec true: %v", keys)
	}
	// Created signed (test_create_zone_with_dnssec). named adds the keys
	// of a zone added with a policy a little after addzone answers; on a
	// quiet machine about one create in forty was read before them.
	for i := 0; i < 20; i++ {
		zi := fmt.Sprintf("signed%d.test.", i)
		t0 := time.Now()
		cr := createPDNSZone(t, c, zi, map[string]any{"dnssec": true})
		took := time.Since(t0)
		if rrsetOf(cr, zi, "DNSKEY") == nil && took < 9*time.Second {
			t.Errorf("the create's answer for %s has no DNSKEY RRset: %s", zi, cr.raw)
		}
		if ks := keysAfter(zi, took); len(ks) != 1 || ks[0]["keytype"] != "csk" {
			t.Errorf("cryptokeys right after a create of %s with dnssec true: %v", zi, ks)
		}
	}
	k := keys[0]
	if k["type"] != "Cryptokey" || k["keytype"] != "csk" || k["active"] != true || k["published"] != true ||
		k["algorithm"] != "ECDSAP256SHA256" || k["bits"].(float64) != 256 || !strings.HasPrefix(k["dnskey"].(string), "257 3 13 ") {
		t.Errorf("key = %v", k)
	}
	if ds, _ := k["ds"].([]any); len(ds) == 0 {
		t.Errorf("no DS for the CSK: %v", k)
	}
	if _, ok := k["privatekey"]; ok {
		t.Error("the listing shows a private key")
	}
	id := strconv.Itoa(int(k["id"].(float64)))
	r := c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/cryptokeys/"+id, nil)
	if r.status != 200 || r.body["id"].(float64) != k["id"].(float64) {
		t.Errorf("cryptokeys/%s = %d %s", id, r.status, r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/cryptokeys/1", nil), 404, "Could not find key")
	// POST cryptokeys is how DNSControl's AUTODNSSEC_ON signs a zone: an
	// unsigned zone gets the default policy; a signed one refuses more.
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath+"/"+z+"/cryptokeys", map[string]any{"keytype": "ksk", "active": true}), 422, "already")
	createPDNSZone(t, c, "auto.test.", nil)
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath+"/auto.test./cryptokeys", map[string]any{"keytype": "csk", "active": true, "algorithm": "RSASHA256", "bits": 2048}), 422, "dnssec-policy")
	r = c.pdns(pdnsKey, "POST", zonesPath+"/auto.test./cryptokeys", map[string]any{"keytype": "csk", "active": true, "published": true})
	if r.status != 201 || r.str("keytype") != "csk" || r.body["active"] != true {
		t.Errorf("POST cryptokeys = %d %s", r.status, r.raw)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/auto.test./cryptokeys", nil)
	if r.status != 200 || !strings.Contains(string(r.raw), `"keytype":"csk"`) {
		t.Errorf("cryptokeys after POST = %d %s", r.status, r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/auto.test./cryptokeys/"+id, nil), 422, "dnssec-policy")
	if r := c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"?rrsets=false", nil); r.body["dnssec"] != true {
		t.Errorf("the zone does not show dnssec: true: %s", r.raw)
	}
}

// TestPowerDNSSerialsAndRRsetChecks: a new zone's serial follows its
// SOA-EDIT-API as PowerDNS's does (DEFAULT, the default, is YYYYMMDD01,
// then each PATCH adds one: test_create_zone_dnssec_serial,
// test_create_zone_with_soa_edit; EPOCH is the Unix time:
// test_create_zone_with_soa_edit_api), as named serves it; and PATCHes
// PowerDNS refuses with 422 (checkRRSet: non-hostname content, apex-only
// and not-at-apex types, one record of a singleton type, a duplicate
// record, a negative TTL, an unknown changetype) are refused in its words
// and change nothing named serves.
func TestPowerDNSSerialsAndRRsetChecks(t *testing.T) {
	c := startPDNS(t, "")
	date := func() uint32 {
		y, m, d := time.Now().UTC().Date()
		return uint32((y*10000+int(m)*100+d)*100 + 1)
	}
	before := date()
	createPDNSZone(t, c, "serial.test.", nil)
	if got, after := serialOf(t, c.ns, "serial.test"), date(); got != before && got != after {
		t.Fatalf("serial of a new zone = %d, want %d (SOA-EDIT-API DEFAULT: YYYYMMDD01)", got, before)
	}
	first := serialOf(t, c.ns, "serial.test")
	expect(t, pdnsPatch(c, "serial.test.", rrset("www.serial.test.", "A", "REPLACE", 3600, "192.0.2.1")), 204, "patch")
	if got := serialOf(t, c.ns, "serial.test"); got != first+1 {
		t.Errorf("serial after a PATCH = %d, want %d", got, first+1)
	}
	lo := uint32(time.Now().Unix())
	createPDNSZone(t, c, "epoch.test.", map[string]any{"soa_edit_api": "EPOCH", "serial": 10})
	if got, hi := serialOf(t, c.ns, "epoch.test"), uint32(time.Now().Unix()); got < lo || got > hi {
		t.Errorf("serial with SOA-EDIT-API EPOCH = %d, want within [%d, %d]", got, lo, hi)
	}
	createPDNSZone(t, c, "kept.test.", map[string]any{"soa_edit_api": "", "serial": 22})
	if got := serialOf(t, c.ns, "kept.test"); got != 22 {
		t.Errorf("serial with soa_edit_api \"\" and serial 22 = %d", got)
	}
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "kept.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), http.StatusConflict, "Conflict")

	settled := serialOf(t, c.ns, "serial.test")
	negativeTTL := rrset("www.serial.test.", "A", "REPLACE", 0, "192.0.2.8")
	negativeTTL["ttl"] = -1
	for _, tc := range []struct {
		set  map[string]any
		want string
	}{
		{rrset("serial.test.", "MX", "REPLACE", 3600, "10 mail@mx.example.org."), "RRset serial.test. IN MX: non-hostname content mail@mx.example.org."},
		{rrset("sub.serial.test.", "NS", "REPLACE", 3600, "ns_1.example.org."), "non-hostname content ns_1.example.org."},
		{rrset("serial.test.", "DS", "REPLACE", 3600, "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"), "RRset serial.test. IN DS: is not allowed at apex"},
		{rrset("sub.serial.test.", "DNSKEY", "REPLACE", 3600, "257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="), "RRset sub.serial.test. IN DNSKEY: is only allowed at apex"},
		{rrset("alias.serial.test.", "CNAME", "REPLACE", 3600, "a.example.org.", "b.example.org."), "RRset alias.serial.test. IN CNAME: only one such record allowed"},
		{rrset("www.serial.test.", "A", "REPLACE", 3600, "192.0.2.7", "192.0.2.7"), `duplicate record with content "192.0.2.7"`},
		{negativeTTL, "Key 'ttl' is not a positive Integer"},
		{rrset("www.serial.test.", "A", "UPSERT", 3600, "192.0.2.9"), "RRset www.serial.test. IN A: Changetype 'UPSERT' is not a valid value"},
	} {
		pdnsError(t, pdnsPatch(c, "serial.test.", tc.set), 422, tc.want)
	}
	if got := serialOf(t, c.ns, "serial.test"); got != settled {
		t.Errorf("refused PATCHes changed the serial: %d, was %d", got, settled)
	}
	if got := answers(query(t, c.ns, "serial.test", dns.TypeMX), dns.TypeMX); len(got) != 0 {
		t.Errorf("named serves MX %v after a refused PATCH", got)
	}
}

// TestPowerDNSZoneListSerials: with named's statistics channel
// configured, GET /zones carries each zone's serial as named reported it
// (test_list_zones: a listed zone's serial is not 0), where every listed
// zone had serial 0.
func TestPowerDNSZoneListSerials(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns\nstatistics_channel " + ns.StatsAddr})
	createPDNSZone(t, c, "listed.test.", map[string]any{"soa_edit_api": "", "serial": 22})
	r := c.pdns(pdnsKey, "GET", zonesPath, nil)
	expect(t, r, 200, "list")
	var list []map[string]any
	if err := json.Unmarshal(r.raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0]["name"] != "listed.test." || list[0]["serial"] != float64(22) {
		t.Errorf("zone list = %s, want listed.test. with serial 22", r.raw)
	}
}

// TestPowerDNSServerConfigAndUptime: GET /config lists ConfigSetting
// items, daemon among them (test_read_config), and the statistics carry
// PowerDNS's uptime, alone with ?statistic=uptime
// (test_read_one_statistic); an unknown name is 422 "Unknown statistic
// name" (test_read_one_non_existent_statistic). Both routes answered 404
// and 422.
func TestPowerDNSServerConfigAndUptime(t *testing.T) {
	c := startPDNS(t, "")
	items := func(path string) map[string]string {
		t.Helper()
		r := c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/"+path, nil)
		expect(t, r, 200, path)
		var list []map[string]string
		if err := json.Unmarshal(r.raw, &list); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out := map[string]string{}
		for _, it := range list {
			out[it["name"]] = it["type"] + " " + it["value"]
		}
		return out
	}
	if got := items("config")["daemon"]; got != "ConfigSetting yes" {
		t.Errorf("config daemon = %q", got)
	}
	up := items("statistics?statistic=uptime")
	if v, ok := up["uptime"]; !ok || len(up) != 1 || !strings.HasPrefix(v, "StatisticItem ") {
		t.Fatalf("statistic uptime = %v", up)
	} else if n, err := strconv.Atoi(strings.TrimPrefix(v, "StatisticItem ")); err != nil || n < 0 || n > 3600 {
		t.Errorf("uptime = %q, want seconds since named started", v)
	}
	if _, ok := items("statistics")["uptime"]; !ok {
		t.Error("statistics lack uptime")
	}
	pdnsError(t, c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/statistics?statistic=uptimeAAAA", nil), 422, "Unknown statistic name")
}

// TestPowerDNSStatisticsCounters: with named's statistics channel
// configured, GET /statistics gives PowerDNS's counters that named keeps
// too, under PowerDNS's names: udp-queries and nxdomain-packets as
// StatisticItems, response-by-qtype and response-by-rcode as
// MapStatisticItems ("A" and "No Error" among them after an A query
// answered, as test_read_statistics reads them), one alone with
// ?statistic=. Before, only rndc status fields and uptime were listed.
func TestPowerDNSStatisticsCounters(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns\nstatistics_channel " + ns.StatsAddr})
	createPDNSZone(t, c, "stats.test.", nil)
	query(t, ns, "stats.test", dns.TypeA)
	query(t, ns, "nothere.stats.test", dns.TypeA)
	type item struct {
		Name  string          `json:"name"`
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	read := func(q string) map[string]item {
		t.Helper()
		r := c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/statistics"+q, nil)
		expect(t, r, 200, "statistics"+q)
		var list []item
		if err := json.Unmarshal(r.raw, &list); err != nil {
			t.Fatalf("statistics%s: %v", q, err)
		}
		out := map[string]item{}
		for _, it := range list {
			out[it.Name] = it
		}
		return out
	}
	all := read("")
	count := func(name string) int {
		var v string
		if it, ok := all[name]; !ok || it.Type != "StatisticItem" || json.Unmarshal(it.Value, &v) != nil {
			t.Fatalf("%s = %+v", name, all[name])
		}
		n, _ := strconv.Atoi(v)
		return n
	}
	if n := count("udp-queries"); n < 2 {
		t.Errorf("udp-queries = %d, want at least the 2 queries sent", n)
	}
	if n := count("nxdomain-packets"); n < 1 {
		t.Errorf("nxdomain-packets = %d, want at least 1", n)
	}
	names := func(name string) []string {
		var pairs []struct{ Name, Value string }
		if it := all[name]; it.Type != "MapStatisticItem" || json.Unmarshal(it.Value, &pairs) != nil {
			t.Fatalf("%s = %+v", name, all[name])
		}
		var out []string
		for _, p := range pairs {
			out = append(out, p.Name)
		}
		return out
	}
	if got := names("response-by-qtype"); !slices.Contains(got, "A") {
		t.Errorf("response-by-qtype names %v, want A among them", got)
	}
	if got := names("response-by-rcode"); !slices.Contains(got, "No Error") || !slices.Contains(got, "Non-Existent domain") {
		t.Errorf("response-by-rcode names %v, want No Error and Non-Existent domain", got)
	}
	if one := read("?statistic=response-by-qtype"); len(one) != 1 || one["response-by-qtype"].Type != "MapStatisticItem" {
		t.Errorf("?statistic=response-by-qtype = %v", one)
	}
}

// TestPowerDNSImportCNAMEConflict: zone file text with a CNAME beside
// other data is 422 in PowerDNS's words, "Conflicts with another RRset"
// (test_import_zone_bind_cname_apex), naming the line named-checkzone
// failed on, where the answer named the warning before it ("no TTL
// specified", the file has no $TTL), and no zone is made.
func TestPowerDNSImportCNAMEConflict(t *testing.T) {
	c := startPDNS(t, "")
	file := "$ORIGIN cname.test.\n@ IN SOA ns1.example.org. hostmaster.example.org. (2002022401 3H 15 1W 3H)\n@ IN NS ns1.example.org.\n@ IN NS ns2.example.net.\n@ IN CNAME www.example.org.\n"
	r := c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "cname.test.", "kind": "Master", "nameservers": []string{}, "zone": file})
	pdnsError(t, r, 422, "Conflicts with another RRset")
	if msg := r.str("error"); !strings.Contains(msg, "CNAME and other data") || strings.Contains(msg, "no TTL") {
		t.Errorf("error = %q, want the CNAME conflict, not the TTL warning", msg)
	}
	if r := c.pdns(pdnsKey, "GET", zonesPath+"/cname.test.", nil); r.status != 404 {
		t.Errorf("a refused import left the zone: %d", r.status)
	}
	// PowerDNS 5's words for it, at the apex (test_import_zone_bind_cname_apex).
	pdnsError(t, r, 422, "RRset cname.test. IN CNAME: conflicts with existing NS RRset of the same name")
}

// TestPowerDNSReplaceAndPatchParity: PUT rrsets and PATCH as PowerDNS
// 4.9+ answers them (test_zone_replace_rrsets_*, test_only_at_apex,
// test_not_allowed_at_apex, test_create_zone_with_leading_space,
// test_zone_rr_update_rrset_combine_replace_and_delete,
// test_create_zone_without_dnssec_set_nsec3parm,
// test_create_consumer_zone_no_nameservers, test_create_zone_double_dot),
// checked against what named serves. Where it answered 500 (a DNSKEY
// PATCH named could not sign, a PUT of a Slave zone's rrsets) it is 422
// and nothing changes.
func TestPowerDNSReplaceAndPatchParity(t *testing.T) {
	c := startPDNS(t, "")
	createPDNSZone(t, c, "par.test.", nil)
	serial := serialOf(t, c.ns, "par.test")
	soa := rrset("par.test.", "SOA", "", 3600, "invalid. hostmaster.invalid. 1 10800 3600 604800 3600")
	ns := rrset("par.test.", "NS", "", 3600, "ns1.example.org.", "ns2.example.org.")

	pdnsError(t, pdnsPatch(c, "par.test.", rrset("par.test.", "DNSKEY", "REPLACE", 3600, "257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==")), 422, "DNSKEY records are BIND's to publish")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/par.test.", map[string]any{"rrsets": []any{ns}}), 422, "Must give SOA record for zone when replacing all RR sets")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/par.test.", map[string]any{"rrsets": []any{soa, ns, rrset("par.test.", "CNAME", "", 3600, "example.org.")}}), 422, "conflicts with existing NS RRset")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/par.test.", map[string]any{"nsec3param": "1 0 1 ab"}), 422, "NSEC3PARAM")
	if got := serialOf(t, c.ns, "par.test"); got != serial {
		t.Fatalf("refused requests changed the zone: serial %d, was %d", got, serial)
	}

	// Content with white space around it, a DELETE and a REPLACE of one
	// RRset, and a DS with its digest in lower case below a delegation.
	expect(t, pdnsPatch(c, "par.test.", rrset("www.par.test.", "A", "REPLACE", 3600, " 192.0.2.10 ")), 204, "padded content")
	if got := answers(query(t, c.ns, "www.par.test", dns.TypeA), dns.TypeA); !slices.Equal(got, []string{"192.0.2.10"}) {
		t.Errorf("www A = %v", got)
	}
	expect(t, pdnsPatch(c, "par.test.", rrset("sub.par.test.", "CNAME", "DELETE", 0), rrset("sub.par.test.", "CNAME", "REPLACE", 500, "www.example.org.")), 204, "delete then replace")
	if got := answers(query(t, c.ns, "sub.par.test", dns.TypeCNAME), dns.TypeCNAME); !slices.Equal(got, []string{"www.example.org."}) {
		t.Errorf("sub CNAME = %v", got)
	}
	expect(t, pdnsPatch(c, "par.test.", rrset("deleg.par.test.", "NS", "REPLACE", 3600, "ns.example.org."),
		rrset("deleg.par.test.", "DS", "REPLACE", 3600, "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7")), 204, "DS in lower case")
	if got := answers(query(t, c.ns, "deleg.par.test", dns.TypeDS), dns.TypeDS); len(got) != 1 || !strings.EqualFold(got[0], "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7") {
		t.Errorf("DS = %v", got)
	}

	// A Slave zone's records are its primaries': none given is a new
	// transfer (PowerDNS empties the zone and marks it stale), records
	// given are refused.
	expect(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "sec.par.", "kind": "Slave", "masters": []string{"127.0.0.2"}}), 201, "create Slave")
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/sec.par.", map[string]any{"rrsets": []any{}}), 204, "PUT rrsets [] of a Slave zone")
	pdnsError(t, c.pdns(pdnsKey, "PUT", zonesPath+"/sec.par.", map[string]any{"rrsets": []any{map[string]any{"name": "sec.par.", "type": "SOA", "ttl": 3600,
		"records": []any{map[string]any{"content": "invalid. hostmaster.invalid. 1 10800 3600 604800 3600"}}}}}), 422, "is a Slave zone")

	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "cons.test.", "kind": "Consumer", "nameservers": []string{"127.0.0.1"}}), 422, "Nameservers MUST NOT be given for Consumer zones")
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "test..par.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}), 422, "Unable to parse Zone Name")
}

// TestPowerDNSNSAndDNAME: NS and DNAME records do not share a name below
// the apex (test_rrset_ns_dname_exclude): a PATCH adding a DNAME at a
// delegation, or NS records at a DNAME, is 422 in PowerDNS's words and
// changes nothing. named took both, and served the delegation without
// the DNAME, so the PATCH was answered 204 (before).
func TestPowerDNSNSAndDNAME(t *testing.T) {
	c := startPDNS(t, "")
	createPDNSZone(t, c, "nsdn.test.", nil)
	expect(t, pdnsPatch(c, "nsdn.test.", rrset("delegation.nsdn.test.", "NS", "REPLACE", 3600, "ns.example.org.")), 204, "delegation")
	expect(t, pdnsPatch(c, "nsdn.test.", rrset("dn.nsdn.test.", "DNAME", "REPLACE", 3600, "example.com.")), 204, "DNAME")
	serial := serialOf(t, c.ns, "nsdn.test")
	pdnsError(t, pdnsPatch(c, "nsdn.test.", rrset("delegation.nsdn.test.", "DNAME", "REPLACE", 3600, "example.com.")), 422,
		"Cannot have both NS and DNAME except in zone apex")
	pdnsError(t, pdnsPatch(c, "nsdn.test.", rrset("dn.nsdn.test.", "NS", "REPLACE", 3600, "ns.example.org.")), 422,
		"Cannot have both NS and DNAME except in zone apex")
	if got := serialOf(t, c.ns, "nsdn.test"); got != serial {
		t.Fatalf("refused PATCHes changed the zone: serial %d, was %d", got, serial)
	}
	if got := answers(query(t, c.ns, "dn.nsdn.test", dns.TypeNS), dns.TypeNS); len(got) != 0 {
		t.Errorf("NS at the DNAME: %v", got)
	}
}
