package powerdns

import (
	"context"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"slices"
	"strings"
	"testing"
)

// TestPutRRsetsSlave: PUT with "rrsets" on a Slave zone. PowerDNS
// (4.9+, test_zone_replace_rrsets_secondary) empties a secondary zone
// given no SOA and marks it stale, so that it transfers anew: here
// named transfers it anew at once (rndc retransfer), 204. Records given
// for a secondary zone stay refused: named takes no UPDATE for it and
// would replace them at the next transfer anyway. Before, both PUTs
// were 422.
func TestPutRRsetsSlave(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	if r := call(t, h, "POST", zp, map[string]any{"name": "s.test.", "kind": "Slave", "masters": []string{"127.0.0.2"}}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "PUT", zp+"/s.test.", map[string]any{"rrsets": []any{}}); r.status != 204 {
		t.Errorf("PUT rrsets []: %d %s", r.status, r.raw)
	}
	if !slices.Equal(f.retransfers, []string{"s.test"}) {
		t.Errorf("retransfers after PUT rrsets []: %v, want [s.test]", f.retransfers)
	}
	soa := map[string]any{"name": "s.test.", "type": "SOA", "ttl": 3600, "records": []any{map[string]any{"content": "invalid. hostmaster.invalid. 1 10800 3600 604800 3600"}}}
	if r := call(t, h, "PUT", zp+"/s.test.", map[string]any{"rrsets": []any{soa}}); r.status != 422 || !strings.Contains(r.raw, "Slave zone") {
		t.Errorf("PUT rrsets [SOA]: %d %s, want 422 naming the Slave zone", r.status, r.raw)
	}
	if len(f.retransfers) != 1 {
		t.Errorf("a refused PUT asked for a transfer: %v", f.retransfers)
	}
	if r := call(t, h, "GET", zp+"/s.test.", nil); r.status != 200 || r.body["kind"] != "Slave" {
		t.Errorf("GET: %d %s", r.status, r.raw)
	}
}

// TestConsumerRefusedWithWhy: a Consumer zone stays refused, saying why:
// named consumes only a catalog zone that named.conf defines and names
// in catalog-zones (it refuses to load the clause otherwise), so a zone
// added through the API would never get its members. Before, the
// refusal said only that catalog zones are the catalog option's.
func TestConsumerRefusedWithWhy(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	r := call(t, h, "POST", zp, map[string]any{"name": "cat.test.", "kind": "Consumer", "masters": []string{"127.0.0.2"}})
	if r.status != 422 || !strings.Contains(r.raw, "catalog-zones") || !strings.Contains(r.raw, "named.conf") {
		t.Errorf("create Consumer: %d %s", r.status, r.raw)
	}
	if len(f.zones) != 0 {
		t.Errorf("named has zones: %v", f.zones)
	}
}

// TestProducerIsTheCatalog: the catalog zone of zone_api's catalog
// option is what PowerDNS calls a Producer zone (its members are the
// zones the API creates): it is shown as kind Producer, with no catalog
// of its own (it is not its own member), and a create of it is 409 as
// for any zone that exists. Before, it was shown as a Master zone member
// of itself.
func TestProducerIsTheCatalog(t *testing.T) {
	f := newFakeNamed(t)
	f.catalog = "cat.test"
	// The module creates the catalog zone; the fake as the service would.
	cat, err := (&zonemodel.CreateZoneRequest{ZoneName: "cat.test", ZoneType: BINDPrimary,
		ZoneConfig: &zonemodel.ZoneConfig{TTL: 3600, NameServers: []string{"invalid."},
			SOA: &zonemodel.SOA{PrimaryNS: "invalid.", AdminEmail: "hostmaster.cat.test."}}}).Normalize(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Create(context.Background(), cat, ""); err != nil {
		t.Fatal(err)
	}
	h := fakeAPI(f)
	if g := call(t, h, "GET", zp+"/cat.test.", nil); g.status != 200 || g.body["kind"] != "Producer" || g.body["catalog"] != "" {
		t.Errorf("GET the catalog zone: %d kind %v catalog %v", g.status, g.body["kind"], g.body["catalog"])
	}
	if r := call(t, h, "POST", zp, map[string]any{"name": "m.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}); r.body["catalog"] != "cat.test." || r.body["kind"] != "Native" {
		t.Errorf("a member: %d %s", r.status, r.raw)
	}
}
