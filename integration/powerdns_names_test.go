package integration

import (
	"slices"
	"testing"
)

// TestPowerDNSUnderscoreNames: PowerDNS checks that names are RFC 1123
// host names unless the zone's RFC1123-CONFORMANCE metadata is "0"
// (test_Zones.py test_underscore_names: with it, an A record at
// _underscores_r_us_ is accepted and served). named's check-names is
// that check: the metadata "0" is check-names ignore in the zone's
// statement, and its deletion named's default again (fail: the UPDATE
// is refused, and the answer says so). Before, the metadata was kept in
// the side file only and named kept refusing the record, and the answer
// said the zone did not admit the API's update key.
func TestPowerDNSUnderscoreNames(t *testing.T) {
	c := startPDNS(t, "")
	const z = "underscores.test."
	createPDNSZone(t, c, z, nil)
	under := rrset("_underscores_r_us_."+z, "A", "REPLACE", 300, "42.42.42.42")
	// Refused, and saying why: named's check-names, which the metadata
	// lifts (before, the answer blamed the update key, which the zone
	// admits).
	pdnsError(t, pdnsPatch(c, z, under), 422, "RFC1123-CONFORMANCE metadata 0 allows such names")

	meta := map[string]any{"type": "Metadata", "kind": "RFC1123-CONFORMANCE", "metadata": []string{"0"}}
	r := c.pdns(pdnsKey, "POST", zonesPath+"/"+z+"/metadata", meta)
	expect(t, r, 201, "metadata")
	if got := strList(r, "metadata"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("metadata answered %v, want [0]", got)
	}
	expect(t, pdnsPatch(c, z, under), 204, "A at an underscore name")
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil)
	expect(t, r, 200, "zone")
	if got := contents(rrsetOf(r, "_underscores_r_us_."+z, "A")); !slices.Equal(got, []string{"42.42.42.42"}) {
		t.Errorf("served %v, want [42.42.42.42]", got)
	}
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/metadata/RFC1123-CONFORMANCE", nil)
	if got := strList(r, "metadata"); r.status != 200 || !slices.Equal(got, []string{"0"}) {
		t.Errorf("metadata read back %d %v, want [0]", r.status, got)
	}

	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/"+z+"/metadata/RFC1123-CONFORMANCE", nil), 204, "delete metadata")
	pdnsError(t, pdnsPatch(c, z, rrset("_again."+z, "A", "REPLACE", 300, "192.0.2.9")), 422, "check-names")
	r = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/metadata/RFC1123-CONFORMANCE", nil)
	if got := strList(r, "metadata"); r.status != 200 || len(got) != 0 {
		t.Errorf("metadata after deletion %d %v, want []", r.status, got)
	}
}

// strList returns a top-level list of strings of the JSON body.
func strList(r *response, key string) []string {
	out := []string{}
	l, _ := r.body[key].([]any)
	for _, v := range l {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}
