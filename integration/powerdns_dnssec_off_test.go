package integration

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestPowerDNSDNSSECOff: PUT {"dnssec": false} of a signed zone turns
// DNSSEC off in one step, as PowerDNS documents it (its keys are removed;
// test_create_zone_with_dnssec_disable_dnssec): the zone is answered
// unsigned (dnssec false, no cryptokeys) and named serves no DNSKEY and no
// signature. On BIND 9.18 it is dnssec-policy insecure, whose keys named
// removes at once when no DS was published for them; the PUT waits for
// that. A later PUT {"dnssec": true} signs the zone again. Before, the
// PUT was 422 ("turning DNSSEC off is not done in one step in BIND").
func TestPowerDNSDNSSECOff(t *testing.T) {
	c := startPDNS(t, "")
	const z = "off.test."
	cryptokeys := func() []map[string]any {
		t.Helper()
		r := c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"/cryptokeys", nil)
		expect(t, r, 200, "cryptokeys")
		var keys []map[string]any
		if err := json.Unmarshal(r.raw, &keys); err != nil {
			t.Fatalf("cryptokeys: %v %s", err, r.raw)
		}
		return keys
	}
	createPDNSZone(t, c, z, map[string]any{"dnssec": true})
	for deadline := time.Now().Add(60 * time.Second); len(cryptokeys()) == 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the signed zone's keys never came")
		}
	}
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z, map[string]any{"dnssec": false}), 204, "PUT dnssec false")
	if g := c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil); g.body["dnssec"] != false {
		t.Errorf("dnssec after PUT dnssec false: %v", g.body["dnssec"])
	}
	if keys := cryptokeys(); len(keys) != 0 {
		t.Errorf("cryptokeys after PUT dnssec false: %v", keys)
	}
	for _, typ := range []uint16{dns.TypeDNSKEY, dns.TypeRRSIG, dns.TypeNSEC} {
		if in := query(t, c.ns, "off.test", typ); len(in.Answer) != 0 {
			t.Errorf("named still serves %s: %v", dns.TypeToString[typ], in.Answer)
		}
	}
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z, map[string]any{"dnssec": true}), 204, "PUT dnssec true again")
	for deadline := time.Now().Add(60 * time.Second); len(cryptokeys()) == 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the zone signed again has no keys")
		}
	}
	if g := c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil); g.body["dnssec"] != true {
		t.Errorf("dnssec after PUT dnssec true: %v", g.body["dnssec"])
	}
}
