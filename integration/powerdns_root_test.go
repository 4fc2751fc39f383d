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

// TestPowerDNSRootZone: PowerDNS serves the root zone "." (test_Zones.py
// AuthRootZone.test_create_zone, test_update_zone): its id is "=2E", its
// default SOA's mailbox hostmaster., its apex RRset named "."; the zone is
// listed, read, changed by PUT and PATCH and deleted by its id. named
// serves it (SOA . at named's port). Every name is in the root zone, so
// the case's name servers ns1.example.com. and ns2.example.com. are inside
// it and need their addresses (named does not load the zone otherwise, and
// the create is refused saying so, as for any zone). The zone directory
// writes the root's files as %2E (zonestore.FileBase). Before, the create
// was 422 ("zone name must not be the root zone").
func TestPowerDNSRootZone(t *testing.T) {
	c := startPDNS(t, "")
	const id = "=2E"
	// The case's create as it is: refused, naming the missing address.
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": ".", "kind": "Native", "nameservers": []string{"ns1.example.com.", "ns2.example.com."}}), 422, "give its A or AAAA record in rrsets")
	r := createPDNSZone(t, c, ".", map[string]any{"serial": 22, "soa_edit_api": "", "rrsets": []any{
		rrset("ns1.example.com.", "A", "", 3600, "192.0.2.1"), rrset("ns2.example.com.", "A", "", 3600, "192.0.2.2")}})
	for _, k := range []string{"id", "url", "name", "masters", "kind", "last_check", "notified_serial", "serial", "soa_edit_api", "soa_edit", "account"} {
		if _, ok := r.body[k]; !ok {
			t.Errorf("created zone lacks %q: %s", k, r.raw)
		}
	}
	if r.str("id") != id || r.str("name") != "." || r.str("kind") != "Native" || r.str("soa_edit_api") != "" || r.body["serial"] != float64(22) {
		t.Errorf("created zone = %s", r.raw)
	}
	if !strings.HasSuffix(r.str("url"), "/zones/"+id) {
		t.Errorf("url %q", r.str("url"))
	}
	if got := contents(rrsetOf(r, ".", "SOA")); !slices.Equal(got, []string{"a.misconfigured.dns.server.invalid. hostmaster. 22 10800 3600 604800 3600"}) {
		t.Errorf("SOA %v", got)
	}
	list := c.pdns(pdnsKey, "GET", zonesPath, nil)
	expect(t, list, 200, "list")
	if !strings.Contains(string(list.raw), `"name":"."`) || !strings.Contains(string(list.raw), `"id":"=2E"`) {
		t.Errorf("the list lacks the root zone: %s", list.raw)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil)
	expect(t, r, 200, "get by id")
	if r.str("name") != "." || r.str("kind") != "Native" {
		t.Errorf("get answered %s", r.raw)
	}
	if sets, _ := r.body["rrsets"].([]any); len(sets) == 0 || sets[0].(map[string]any)["name"] != "." {
		t.Errorf("the first RRset is not the apex's: %s", r.raw)
	}
	if m := query(t, c.ns, ".", dns.TypeSOA); !slices.Equal(answers(m, dns.TypeSOA), []string{"a.misconfigured.dns.server.invalid. hostmaster. 22 10800 3600 604800 3600"}) {
		t.Errorf("named answers SOA . with %v", m)
	}
	file := filepath.Join(c.ns.ZoneDir, "%2E.zone")
	if _, err := os.Stat(file); err != nil {
		t.Errorf("zone file: %v (zone directory holds %v)", err, dirNames(t, c.ns.ZoneDir))
	}

	// test_update_zone: PUT the attributes and back.
	put := map[string]any{"kind": "Master", "masters": []string{"192.0.2.1", "192.0.2.2"}, "soa_edit_api": "EPOCH", "soa_edit": "EPOCH"}
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+id, put), http.StatusNoContent, "PUT")
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil)
	expect(t, r, 200, "get after PUT")
	if r.str("kind") != "Master" || r.str("soa_edit_api") != "EPOCH" || r.str("soa_edit") != "EPOCH" || len(r.body["masters"].([]any)) != 2 {
		t.Errorf("after PUT: %s", r.raw)
	}
	put = map[string]any{"kind": "Native", "soa_edit_api": "", "soa_edit": ""}
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+id, put), http.StatusNoContent, "PUT back")
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil)
	if r.str("kind") != "Native" || r.str("soa_edit_api") != "" || r.str("soa_edit") != "" {
		t.Errorf("after PUT back: %s", r.raw)
	}

	// PATCH records: below the root, and at its apex.
	expect(t, pdnsPatch(c, id, rrset("www.example.", "A", "REPLACE", 300, "192.0.2.10"), rrset(".", "TXT", "REPLACE", 300, `"root"`)), 204, "PATCH")
	if got := answers(query(t, c.ns, "www.example.", dns.TypeA), dns.TypeA); !slices.Equal(got, []string{"192.0.2.10"}) {
		t.Errorf("named serves %v at www.example.", got)
	}
	if got := answers(query(t, c.ns, ".", dns.TypeTXT), dns.TypeTXT); !slices.Equal(got, []string{`"root"`}) {
		t.Errorf("named serves TXT %v at .", got)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil)
	if got := contents(rrsetOf(r, "www.example.", "A")); !slices.Equal(got, []string{"192.0.2.10"}) {
		t.Errorf("GET shows %v at www.example.", got)
	}
	expect(t, pdnsPatch(c, id, rrset("www.example.", "A", "DELETE", 0)), 204, "PATCH DELETE")
	if m := query(t, c.ns, "www.example.", dns.TypeA); len(answers(m, dns.TypeA)) != 0 {
		t.Errorf("named still serves www.example.: %v", m)
	}

	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/"+id, nil), 204, "delete")
	if m := query(t, c.ns, ".", dns.TypeSOA); m.Rcode != dns.RcodeRefused {
		t.Errorf("named answers %s for the deleted root zone, want REFUSED", dns.RcodeToString[m.Rcode])
	}
	if r := c.pdns(pdnsKey, "GET", zonesPath+"/"+id, nil); r.status != 404 {
		t.Errorf("GET after delete: %d %s", r.status, r.raw)
	}
	if names := dirNames(t, c.ns.ZoneDir); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "%2E") }) {
		t.Errorf("files left after the delete: %v", names)
	}

	// Created again from zone file text (the import), then exported.
	text := ". 3600 IN SOA a.root-servers.test. hostmaster. 7 10800 3600 604800 3600\n" +
		". 3600 IN NS a.root-servers.test.\na.root-servers.test. 3600 IN A 192.0.2.4\nwww.example. 300 IN A 192.0.2.11\n"
	r = c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": ".", "kind": "Native", "zone": text})
	expect(t, r, http.StatusCreated, "import")
	if got := answers(query(t, c.ns, "www.example.", dns.TypeA), dns.TypeA); !slices.Equal(got, []string{"192.0.2.11"}) {
		t.Errorf("named serves %v at www.example. after the import", got)
	}
	r = c.send("GET", zonesPath+"/"+id+"/export", nil, map[string]string{"X-API-Key": pdnsKey, "Accept": "text/plain"})
	expect(t, r, 200, "export")
	if !strings.Contains(string(r.raw), "www.example.\t300\tIN\tA\t192.0.2.11\n") || !strings.Contains(string(r.raw), ".\t3600\tIN\tNS\ta.root-servers.test.\n") {
		t.Errorf("export:\n%s", r.raw)
	}
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/"+id, nil), 204, "delete the import")
}

// TestPowerDNSRootZoneSigned: a signed root zone (dnssec: true): named
// writes its keys as K.+013+NNNNN (the zone directory is its key
// directory), its cryptokeys are listed, and the delete removes the key
// files with the zone's.
func TestPowerDNSRootZoneSigned(t *testing.T) {
	c := startPDNS(t, "")
	createPDNSZone(t, c, ".", map[string]any{"dnssec": true, "rrsets": []any{
		rrset("ns1.example.com.", "A", "", 3600, "192.0.2.1"), rrset("ns2.example.com.", "A", "", 3600, "192.0.2.2")}})
	keyFiles := func() []string {
		var keys []string
		for _, n := range dirNames(t, c.ns.ZoneDir) {
			if strings.HasPrefix(n, "K.+") {
				keys = append(keys, n)
			}
		}
		return keys
	}
	waitFor(t, "the root zone's key files", func() bool { return len(keyFiles()) > 0 })
	waitFor(t, "the root zone's cryptokeys", func() bool {
		r := c.pdns(pdnsKey, "GET", zonesPath+"/=2E/cryptokeys", nil)
		return r.status == 200 && strings.Contains(string(r.raw), `"dnskey"`)
	})
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/=2E", nil), 204, "delete")
	if keys := keyFiles(); len(keys) != 0 {
		t.Errorf("key files left after the delete: %v", keys)
	}
	if names := dirNames(t, c.ns.ZoneDir); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "%2E") }) {
		t.Errorf("files left after the delete: %v", names)
	}
}
