package powerdns

import (
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

// TestConsumerKind: a Consumer zone (PowerDNS's consumer of a catalog
// zone, RFC 9432) is the secondary zone of the catalog that named
// transfers from its masters, shown as Consumer (test_create_consumer_zone,
// test_delete_consumer_zone); a PUT of no rrsets transfers it anew, one
// of records is refused in PowerDNS's words
// (test_zone_replace_rrsets_consumer). Producer stays refused. Before,
// the create was 422.
func TestConsumerKind(t *testing.T) {
	f := newFakeNamed(t)
	h := fakeAPI(f)
	r := call(t, h, "POST", zp, map[string]any{"name": "cat.test.", "kind": "Consumer", "masters": []string{"127.0.0.2"}})
	if r.status != 201 || r.body["kind"] != "Consumer" || js(r.body["masters"]) != `["127.0.0.2"]` || js(r.body["rrsets"]) != `[]` {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if z := f.zones["cat.test"]; z == nil || z.info.Type != BINDSecondary || !slices.Equal(z.info.Primaries, []string{"127.0.0.2"}) {
		t.Fatalf("named's zone: %+v", z)
	}
	if g := call(t, h, "GET", zp+"/cat.test.", nil); g.status != 200 || g.body["kind"] != "Consumer" {
		t.Errorf("GET: %d %s", g.status, g.raw)
	}
	l := call(t, h, "GET", zp, nil)
	if len(l.list) != 1 || l.list[0].(map[string]any)["kind"] != "Consumer" {
		t.Errorf("list: %s", l.raw)
	}
	if r := call(t, h, "PUT", zp+"/cat.test.", map[string]any{"rrsets": []any{}}); r.status != 204 || !slices.Equal(f.retransfers, []string{"cat.test"}) {
		t.Errorf("PUT rrsets []: %d %s, retransfers %v", r.status, r.raw, f.retransfers)
	}
	soa := map[string]any{"name": "cat.test.", "type": "SOA", "ttl": 3600, "records": []any{map[string]any{"content": "invalid. hostmaster.invalid. 1 10800 3600 604800 3600"}}}
	if r := call(t, h, "PUT", zp+"/cat.test.", map[string]any{"rrsets": []any{soa}}); r.status != 422 || !strings.Contains(r.raw, "Modifying RRsets in Consumer zones is unsupported") {
		t.Errorf("PUT rrsets [SOA]: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "DELETE", zp+"/cat.test.", nil); r.status != 204 || f.zones["cat.test"] != nil {
		t.Errorf("DELETE: %d %s", r.status, r.raw)
	}
	if r := call(t, h, "POST", zp, map[string]any{"name": "prod.test.", "kind": "Producer", "nameservers": []string{"ns1.example.com."}}); r.status != 422 {
		t.Errorf("Producer: %d %s", r.status, r.raw)
	}
}
