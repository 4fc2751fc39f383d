package integration

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// servedSOA is the zone's SOA as named answers it.
func servedSOA(t *testing.T, c *caddy, zone string) *dns.SOA {
	t.Helper()
	in := query(t, c.ns, zone, dns.TypeSOA)
	if len(in.Answer) != 1 {
		t.Fatalf("no SOA for %s: %v", zone, in)
	}
	return in.Answer[0].(*dns.SOA)
}

// TestPowerDNSPatchSOA: PowerDNS lets a PATCH REPLACE the SOA RRset
// (test_only_at_apex_0_SOA, test_rrset_zone_apex) and a PUT of rrsets give
// it (test_zone_replace_rrsets_basic), the serial given edited by the
// zone's SOA-EDIT-API. On BIND the SOA is set in the PATCH's UPDATE with
// that serial when it is above the zone's, and with named's next serial
// otherwise (named serves no lower serial); X-PDNS-New-Serial is the
// serial named then serves. Before, every SOA change was 422.
func TestPowerDNSPatchSOA(t *testing.T) {
	c := startPDNS(t, "")

	// SOA-EDIT-API "": the serial as given.
	createPDNSZone(t, c, "soa.test.", map[string]any{"soa_edit_api": ""})
	before := servedSOA(t, c, "soa.test").Serial
	given := before + 10
	content := fmt.Sprintf("ns1.example.org. test.example.org. %d 10800 3600 604800 1800", given)
	r := pdnsPatch(c, "soa.test.", rrset("soa.test.", "SOA", "REPLACE", 3600, content))
	expect(t, r, 204, "PATCH of the SOA")
	got := servedSOA(t, c, "soa.test")
	if got.Serial != given || got.Ns != "ns1.example.org." || got.Mbox != "test.example.org." || got.Minttl != 1800 || got.Hdr.Ttl != 3600 {
		t.Fatalf("named serves %v, want the SOA given (serial %d)", got, given)
	}
	if r.header.Get("X-PDNS-Old-Serial") != strconv.FormatUint(uint64(before), 10) || r.header.Get("X-PDNS-New-Serial") != strconv.FormatUint(uint64(given), 10) {
		t.Errorf("serial headers %s -> %s, want %d -> %d", r.header.Get("X-PDNS-Old-Serial"), r.header.Get("X-PDNS-New-Serial"), before, given)
	}
	g := c.pdns(pdnsKey, "GET", zonesPath+"/soa.test.", nil)
	if soa := contents(rrsetOf(g, "soa.test.", "SOA")); !slices.Equal(soa, []string{content}) {
		t.Errorf("GET gives the SOA %v, want %q", soa, content)
	}
	if sr, _ := g.body["serial"].(float64); uint32(sr) != given {
		t.Errorf("GET gives the zone's serial %v, want %d, the one named serves", g.body["serial"], given)
	}
	// An RNAME written as an address reads back as given
	// (test_only_at_apex_0_SOA), where named's text escapes the "@".
	content = fmt.Sprintf("ns1.example.org. test@example.org. %d 10800 3600 604800 1800", given+1)
	expect(t, pdnsPatch(c, "soa.test.", rrset("soa.test.", "SOA", "REPLACE", 3600, content)), 204, "PATCH of the SOA with an @ in its RNAME")
	g = c.pdns(pdnsKey, "GET", zonesPath+"/soa.test.", nil)
	if soa := contents(rrsetOf(g, "soa.test.", "SOA")); !slices.Equal(soa, []string{content}) {
		t.Errorf("GET gives the SOA %v, want %q", soa, content)
	}
	given++
	pdnsError(t, pdnsPatch(c, "soa.test.", rrset("sub.soa.test.", "SOA", "REPLACE", 3600, content)), 422, "only allowed at apex")
	pdnsError(t, pdnsPatch(c, "soa.test.", rrset("soa.test.", "SOA", "DELETE", 0)), 422, "the SOA RRset can only be replaced")
	// A serial not above the zone's: named's next one, the rest as given.
	r = pdnsPatch(c, "soa.test.", rrset("soa.test.", "SOA", "REPLACE", 600, "ns2.example.org. test.example.org. 5 10800 3600 604800 900"),
		rrset("www.soa.test.", "A", "REPLACE", 60, "192.0.2.1"))
	expect(t, r, 204, "PATCH of the SOA with a lower serial")
	if got = servedSOA(t, c, "soa.test"); got.Serial != given+1 || got.Ns != "ns2.example.org." || got.Minttl != 900 || r.header.Get("X-PDNS-New-Serial") != strconv.FormatUint(uint64(given+1), 10) {
		t.Fatalf("named serves %v (header %s), want serial %d and the SOA given", got, r.header.Get("X-PDNS-New-Serial"), given+1)
	}
	if a := answers(query(t, c.ns, "www.soa.test", dns.TypeA), dns.TypeA); !slices.Equal(a, []string{"192.0.2.1"}) {
		t.Errorf("www A = %v", a)
	}

	// SOA-EDIT-API DEFAULT (test_rrset_zone_apex): serial 10 is edited
	// to YYYYMMDD01, which a zone created today has already: the next.
	createPDNSZone(t, c, "apex.test.", nil)
	before = servedSOA(t, c, "apex.test").Serial
	if day := uint32(time.Now().UTC().Year()*1000000 + int(time.Now().UTC().Month())*10000 + time.Now().UTC().Day()*100 + 1); before != day {
		t.Logf("the zone's serial %d is not today's first %d (created across midnight?)", before, day)
	}
	r = pdnsPatch(c, "apex.test.", rrset("apex.test.", "SOA", "REPLACE", 3600, "ns1.example.org. test.example.org. 10 10800 3600 604800 3600"),
		rrset("apex.test.", "DNAME", "REPLACE", 3600, "example.com."))
	expect(t, r, 204, "PATCH of the SOA and an apex DNAME")
	if got = servedSOA(t, c, "apex.test"); got.Serial != before+1 || got.Ns != "ns1.example.org." || r.header.Get("X-PDNS-New-Serial") != strconv.FormatUint(uint64(got.Serial), 10) {
		t.Fatalf("named serves %v (header %s), want serial %d", got, r.header.Get("X-PDNS-New-Serial"), before+1)
	}

	// PUT of rrsets with an SOA (test_zone_replace_rrsets_basic).
	createPDNSZone(t, c, "put.test.", map[string]any{"soa_edit_api": "", "soa_edit": ""})
	before = servedSOA(t, c, "put.test").Serial
	content = fmt.Sprintf("invalid. hostmaster.invalid. %d 10800 3600 604800 3600", before+1)
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/put.test.", map[string]any{"rrsets": []any{
		rrset("put.test.", "SOA", "", 3600, content),
		rrset("put.test.", "NS", "", 3600, "ns1.example.org.", "ns2.example.org."),
		rrset("www.put.test.", "A", "", 3600, "192.0.2.1"),
	}}), 204, "PUT of rrsets with an SOA")
	if got = servedSOA(t, c, "put.test"); got.Serial != before+1 || got.Ns != "invalid." || got.Mbox != "hostmaster.invalid." {
		t.Fatalf("named serves %v after the PUT, want %q", got, content)
	}
	g = c.pdns(pdnsKey, "GET", zonesPath+"/put.test.", nil)
	if soa := contents(rrsetOf(g, "put.test.", "SOA")); !slices.Equal(soa, []string{content}) {
		t.Errorf("GET gives the SOA %v, want %q", soa, content)
	}
}
