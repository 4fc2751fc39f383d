package integration

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// TestPowerDNSPutRRsetsNeedsRecords: a PUT of a zone with rrsets
// replaces its records, so it asks the records question every record
// change asks (issue 25, defect 2): a token with only the zones action
// gets 403 there, as on PATCH and on the REST record routes, and named
// still serves the zone's records unchanged; without rrsets the same PUT
// (settings only) is the zones action's; a token with both actions
// replaces the records, and named serves the new ones.
func TestPowerDNSPutRRsetsNeedsRecords(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "zonesonly", "both")
	extra := fmt.Sprintf(`powerdns
			auth static {
				token admin %s
				token zonesonly %s {
					actions zones read
					zones c.test
				}
				token both %s {
					actions zones records read
					zones c.test
				}
			}`, hash["admin"], hash["zonesonly"], hash["both"])
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: extra})
	expect(t, c.pdns(tok["admin"], "POST", zonesPath, map[string]any{"name": "c.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."},
		"rrsets": []any{rrset("www.c.test.", "A", "", 60, "192.0.2.1"), rrset("old.c.test.", "TXT", "", 60, `"keep me"`)}}), 201, "admin creates c.test")
	served := func() (www, old []string) {
		return answers(query(t, ns, "www.c.test", dns.TypeA), dns.TypeA), answers(query(t, ns, "old.c.test", dns.TypeTXT), dns.TypeTXT)
	}
	www0, old0 := served()
	if len(www0) != 1 || len(old0) != 1 {
		t.Fatalf("named serves www %v, old %v after the create", www0, old0)
	}

	// A PUT that replaces the RRsets gives the SOA, as PowerDNS requires.
	put := map[string]any{"kind": "Native", "rrsets": []any{rrset("c.test.", "SOA", "", 3600, "ns1.example.com. hostmaster.c.test. 1 10800 3600 604800 3600"), rrset("www.c.test.", "A", "", 60, "198.51.100.9")}}
	pdnsError(t, c.pdns(tok["zonesonly"], "PUT", zonesPath+"/c.test.", put), http.StatusForbidden, `lacks the "records" action`)
	pdnsError(t, c.pdns(tok["zonesonly"], "PATCH", zonesPath+"/c.test.", map[string]any{"rrsets": []any{rrset("www.c.test.", "A", "REPLACE", 60, "198.51.100.9")}}),
		http.StatusForbidden, `lacks the "records"`)
	expectError(t, c.as(tok["zonesonly"], "POST", "/api/v1/zones/c.test/records", map[string]any{"name": "www", "type": "A", "value": "198.51.100.9", "ttl": 60}),
		http.StatusForbidden, "Forbidden", `lacks the "records"`)
	if www, old := served(); !slices.Equal(www, www0) || !slices.Equal(old, old0) {
		t.Errorf("after the refused PUT named serves www %v (was %v), old %v (was %v)", www, www0, old, old0)
	}
	expect(t, c.pdns(tok["zonesonly"], "PUT", zonesPath+"/c.test.", map[string]any{"kind": "Native", "soa_edit_api": "DEFAULT"}), http.StatusNoContent, "a PUT of settings only")

	expect(t, c.pdns(tok["both"], "PUT", zonesPath+"/c.test.", put), http.StatusNoContent, "a PUT with rrsets by a token with records")
	if www, old := served(); !slices.Equal(www, []string{"198.51.100.9"}) || len(old) != 0 {
		t.Errorf("after the PUT named serves www %v, old %v: want www 198.51.100.9 and no old", www, old)
	}
}
