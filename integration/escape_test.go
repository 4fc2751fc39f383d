package integration

import (
	"net/http"
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// TestBadEscapesRefused: record data with a \DDD escape that named's
// master-file parser refuses (named-checkzone: "syntax error") is refused
// by both APIs, the PowerDNS API with PowerDNS's 422 of
// test_zone_rr_update_invalid_txt and the REST API with its 400, and
// named is left unchanged; a complete escape goes through. Before, the
// PATCH was 204 and named served "TEST1" "TEST2", the REST add 201.
func TestBadEscapesRefused(t *testing.T) {
	c := startPDNS(t, "")
	const zone = "esc.test"
	createPDNSZone(t, c, zone+".", nil)
	serial := serialOf(t, c.ns, zone)

	pdnsError(t, pdnsPatch(c, zone+".", rrset("ill-formed-txt."+zone+".", "TXT", "REPLACE", 3600, `"TEST\1" "TEST2"`)), 422,
		`Record ill-formed-txt.esc.test./TXT '"TEST\1" "TEST2"': Not in expected format (parsed as '"TEST1" "TEST2"')`)
	pdnsError(t, pdnsPatch(c, zone+".", rrset(zone+".", "CAA", "EXTEND", 3600, `0 issue "ca\256"`)), 422, `Not in expected format (parsed as '0 issue "ca256"'): the content has the escape \256, out of range`)
	pdnsError(t, pdnsPatch(c, zone+".", rrset("h."+zone+".", "HINFO", "REPLACE", 3600, `"cpu\12" "os"`)), 422, `the content has the incomplete escape \12`)
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "esc2.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."},
		"rrsets": []map[string]any{rrset("t.esc2.test.", "TXT", "", 60, `"a\1"`)}}), 422, `Not in expected format (parsed as '"a1"')`)
	expect(t, c.pdns(pdnsKey, "GET", zonesPath+"/esc2.test.", nil), http.StatusNotFound, "the zone refused at its create")
	file := "$ORIGIN esc4.test.\n@ IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300\n@ IN NS ns1.example.org.\nt 300 IN TXT \"TEST\\1\" \"TEST2\"\n"
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "esc4.test.", "kind": "Master", "nameservers": []string{}, "zone": file}), 422, `incomplete escape \1`)
	expect(t, c.pdns(pdnsKey, "GET", zonesPath+"/esc4.test.", nil), http.StatusNotFound, "the zone refused at its import")

	r := c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "rest", "type": "TXT", "value": `"a\256"`})
	expectError(t, r, 400, "Bad Request", `escape \256, out of range`)
	r = c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "rest", "type": "CNAME", "value": `a\1.example.org.`})
	expectError(t, r, 400, "Bad Request", `incomplete escape \1`)
	body := zoneBody("esc3.test")
	body["zoneConfig"].(map[string]any)["records"] = []map[string]any{{"name": "t", "type": "SPF", "value": `"v=spf1 \1"`}}
	expectError(t, c.do("POST", "/api/v1/zones", body), 400, "Bad Request", `incomplete escape \1`)

	for _, n := range []string{"ill-formed-txt", "h", "rest"} {
		for _, q := range []uint16{dns.TypeTXT, dns.TypeHINFO, dns.TypeCNAME} {
			if got := answers(query(t, c.ns, n+"."+zone, q), q); len(got) != 0 {
				t.Errorf("named serves %s %s %v after a refusal", n, dns.TypeToString[q], got)
			}
		}
	}
	if got := answers(query(t, c.ns, zone, dns.TypeCAA), dns.TypeCAA); len(got) != 0 {
		t.Errorf("named serves CAA %v after a refusal", got)
	}
	if got := serialOf(t, c.ns, zone); got != serial {
		t.Errorf("refused changes changed the serial: %d, was %d", got, serial)
	}
	for _, z := range []string{"esc2.test", "esc3.test", "esc4.test"} {
		if m := query(t, c.ns, z, dns.TypeSOA); m.Rcode != dns.RcodeRefused {
			t.Errorf("%s: named answers %s, want REFUSED (no such zone)", z, dns.RcodeToString[m.Rcode])
		}
	}

	// A complete escape is taken, as the bytes it names
	// (test_zone_rr_update_with_escapes).
	expect(t, pdnsPatch(c, zone+".", rrset("well-formed-txt."+zone+".", "TXT", "REPLACE", 3600, `"valid\000record"`)), 204, "complete escape")
	if got := answers(query(t, c.ns, "well-formed-txt."+zone, dns.TypeTXT), dns.TypeTXT); !slices.Equal(got, []string{`"valid\000record"`}) {
		t.Errorf("named serves %v, want \"valid\\000record\"", got)
	}
}
