package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestPowerDNSSlashNames: PowerDNS takes a '/' in a zone's labels (RFC
// 2317's classless in-addr.arpa zones) and gives such a zone the id with
// '/' as =2F (test_Zones.py test_create_zone_with_symbols,
// test_get_zone_with_symbols, test_find_zone_by_name); named serves such
// zones. Here the zone is created, found by its id and by ?zone=, changed
// by PATCH and served by named (a PTR record at 1.0/25.2.0.192.in-
// addr.arpa); its file is one file of the zone directory (the '/' written
// %2F, as named writes its key files), and its delete takes its files.
// named's check-names refuses an SOA mailbox under the zone's name (422,
// saying so), so PowerDNS's default SOA (hostmaster.<zone>) has its
// mailbox at the nearest name without '/'. Before, the create was 422
// ("invalid character '/'").
func TestPowerDNSSlashNames(t *testing.T) {
	c := startPDNS(t, "")
	const z = "0/25.2.0.192.in-addr.arpa."
	const id = "0=2F25.2.0.192.in-addr.arpa."
	// An SOA mailbox hostmaster.<zone>, whose domain named's check-names
	// refuses (it is not a host name): refused before named hears of it,
	// saying why.
	soa := rrset(z, "SOA", "", 3600, "a.misconfigured.dns.server.invalid. hostmaster."+z+" 1 10800 3600 604800 3600")
	delete(soa, "changetype")
	r := c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": z, "kind": "Native", "nameservers": []string{"ns1.example.com."}, "rrsets": []map[string]any{soa}})
	pdnsError(t, r, 422, "check-names")
	if names := dirNames(t, c.ns.ZoneDir); len(names) != 0 {
		t.Errorf("files written for the refused create: %v", names)
	}
	// PowerDNS's default SOA: its mailbox at the nearest name without '/'.
	r = createPDNSZone(t, c, z, nil)
	if got := contents(rrsetOf(r, z, "SOA")); len(got) != 1 || !strings.HasPrefix(got[0], "a.misconfigured.dns.server.invalid. hostmaster.2.0.192.in-addr.arpa. ") {
		t.Errorf("default SOA %v, want its mailbox hostmaster.2.0.192.in-addr.arpa.", got)
	}
	if r.str("id") != id || r.str("name") != z {
		t.Errorf("create answered id %q name %q, want %q %q", r.str("id"), r.str("name"), id, z)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil)
	expect(t, r, 200, "get by id")
	if r.str("name") != z || r.str("id") != id {
		t.Errorf("get answered id %q name %q", r.str("id"), r.str("name"))
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"?zone="+z, nil)
	expect(t, r, 200, "list ?zone=")
	if !strings.Contains(string(r.raw), `"name":"`+z+`"`) {
		t.Errorf("?zone=%s answered %s", z, r.raw)
	}
	expect(t, pdnsPatch(c, id, rrset("1."+z, "PTR", "REPLACE", 300, "host1.example.")), 204, "PATCH PTR")
	if got := answers(query(t, c.ns, "1."+z, dns.TypePTR), dns.TypePTR); !slices.Equal(got, []string{"host1.example."}) {
		t.Errorf("named serves %v at 1.%s, want [host1.example.]", got, z)
	}
	if got := contents(rrsetOf(c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil), "1."+z, "PTR")); !slices.Equal(got, []string{"host1.example."}) {
		t.Errorf("GET shows %v", got)
	}
	file := filepath.Join(c.ns.ZoneDir, "0%2F25.2.0.192.in-addr.arpa.zone")
	if _, err := os.Stat(file); err != nil {
		t.Errorf("zone file: %v (zone directory holds %v)", err, dirNames(t, c.ns.ZoneDir))
	}
	for _, n := range dirNames(t, c.ns.ZoneDir) {
		if fi, err := os.Lstat(filepath.Join(c.ns.ZoneDir, n)); err == nil && fi.IsDir() {
			t.Errorf("a directory %q in the zone directory", n)
		}
	}
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/"+id, nil), 204, "delete")
	if m := query(t, c.ns, "1."+z, dns.TypePTR); m.Rcode != dns.RcodeRefused {
		t.Errorf("named answers %s for the deleted zone, want REFUSED", dns.RcodeToString[m.Rcode])
	}
	if names := dirNames(t, c.ns.ZoneDir); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "0%2F25") }) {
		t.Errorf("files left after the delete: %v", names)
	}
}

// TestRESTSlashNames: the zone API takes the same names; in a URL path the
// '/' of the name is percent-encoded (%2F), as any reserved character of
// a path segment. Before, the create was 400 ("invalid character '/'").
func TestRESTSlashNames(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const z = "0/26.100.51.198.in-addr.arpa"
	// Name servers outside the zone: named's check-names (fail in a
	// primary zone) refuses an A record at a name with '/' (not a host
	// name), so no glue there; a PTR at such a name is served.
	body := zoneBody(z)
	cfg := body["zoneConfig"].(map[string]any)
	cfg["soa"] = map[string]any{"primaryNs": "ns1.example.net.", "adminEmail": "hostmaster.example.net.", "serial": 2026112501}
	cfg["nameServers"] = []string{"ns1.example.net.", "ns2.example.net."}
	delete(cfg, "nameServerIps")
	cfg["records"] = []map[string]any{{"name": "1", "type": "PTR", "value": "host1.example.net.", "ttl": 300}}
	r := c.do("POST", "/api/v1/zones", body)
	expect(t, r, http.StatusCreated, "create")
	if loc := r.header.Get("Location"); loc != "/api/v1/zones/0%2F26.100.51.198.in-addr.arpa" {
		t.Errorf("Location %q, want the name percent-encoded", loc)
	}
	// RFC 2317's delegation in the parent: a CNAME into the child, whose
	// name has the '/', and the child's NS (before: refused as content).
	parent := zoneBody("100.51.198.in-addr.arpa")
	pcfg := parent["zoneConfig"].(map[string]any)
	pcfg["soa"] = cfg["soa"]
	pcfg["nameServers"] = cfg["nameServers"]
	delete(pcfg, "nameServerIps")
	pcfg["records"] = []map[string]any{
		{"name": "0/26", "type": "NS", "value": "ns1.example.net.", "ttl": 300},
		{"name": "1", "type": "CNAME", "value": "1." + z + ".", "ttl": 300},
	}
	expect(t, c.do("POST", "/api/v1/zones", parent), http.StatusCreated, "create the parent")
	m := query(t, ns, "1.100.51.198.in-addr.arpa", dns.TypePTR)
	if got := answers(m, dns.TypeCNAME); !slices.Equal(got, []string{"1." + z + "."}) {
		t.Errorf("the parent's CNAME: %v", m)
	}
	// (named, recursion off, answers the CNAME alone: a resolver follows
	// it to the child's PTR, asked of named below.)
	expect(t, c.do("DELETE", "/api/v1/zones/100.51.198.in-addr.arpa", nil), 200, "delete the parent")
	r = c.do("GET", "/api/v1/zones/0%2F26.100.51.198.in-addr.arpa", nil)
	expect(t, r, 200, "get")
	if !strings.Contains(string(r.raw), z) {
		t.Errorf("get answered %s", r.raw)
	}
	if got := answers(query(t, ns, "1."+z, dns.TypePTR), dns.TypePTR); !slices.Equal(got, []string{"host1.example.net."}) {
		t.Errorf("named serves %v at 1.%s", got, z)
	}
	if _, err := os.Stat(filepath.Join(ns.ZoneDir, "0%2F26.100.51.198.in-addr.arpa.zone")); err != nil {
		t.Errorf("zone file: %v (zone directory holds %v)", err, dirNames(t, ns.ZoneDir))
	}
	expect(t, c.do("DELETE", "/api/v1/zones/0%2F26.100.51.198.in-addr.arpa", nil), 200, "delete")
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files left after the delete: %v", names)
	}
}

// TestPowerDNSSlashNamesSigned: a signed zone named with '/' (dnssec:
// true): named writes its keys as Kfoo%2Fbar…+013+NNNNN (the zone
// directory is its key directory), the same escape as the zone's own
// files, and the delete removes them with the zone's files.
func TestPowerDNSSlashNamesSigned(t *testing.T) {
	c := startPDNS(t, "")
	const z = "0/27.3.0.192.in-addr.arpa."
	createPDNSZone(t, c, z, map[string]any{"dnssec": true})
	var keys []string
	for _, n := range dirNames(t, c.ns.ZoneDir) {
		if strings.HasPrefix(n, "K0%2F27.3.0.192.in-addr.arpa.+") {
			keys = append(keys, n)
		}
	}
	if len(keys) == 0 {
		t.Fatalf("no key files of the zone in %v", dirNames(t, c.ns.ZoneDir))
	}
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/0=2F27.3.0.192.in-addr.arpa.", nil), 204, "delete")
	if names := dirNames(t, c.ns.ZoneDir); slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "0%2F27") }) {
		t.Errorf("files left after the delete: %v", names)
	}
}
