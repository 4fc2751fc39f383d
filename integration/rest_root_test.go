package integration

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
)

// TestRESTRootZone: the zone API takes the root zone "." too: created by
// POST /api/v1/zones (zoneName "."), addressed in a URL path as %2E (a
// path segment "." is the segment itself, which URL resolution drops:
// RFC 3986 §5.2.4), read, its records changed and deleted; named serves
// it. The Go client sends %2E for "." as well. Before, the create was 400
// ("zone name must not be the root zone"); on the REST side only the
// Location header (/zones/.) and the client's path (/zones/, the list)
// needed the escape.
func TestRESTRootZone(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	body := map[string]any{"zoneName": ".", "zoneType": "primary", "zoneConfig": map[string]any{
		"ttl":           3600,
		"soa":           map[string]any{"primaryNs": "a.root-servers.test.", "adminEmail": "hostmaster", "serial": 2026112701},
		"nameServers":   []string{"a.root-servers.test."},
		"nameServerIps": map[string]string{"a.root-servers.test.": "192.0.2.53"},
		"records":       []map[string]any{{"name": "www.example", "type": "A", "value": "192.0.2.80", "ttl": 300}},
	}}
	r := c.do("POST", "/api/v1/zones", body)
	expect(t, r, http.StatusCreated, "create")
	if loc := r.header.Get("Location"); loc != "/api/v1/zones/%2E" {
		t.Errorf("Location %q, want /api/v1/zones/%%2E", loc)
	}
	if m := query(t, ns, ".", dns.TypeSOA); !slices.Equal(answers(m, dns.TypeSOA), []string{"a.root-servers.test. hostmaster. 2026112701 3600 600 604800 86400"}) {
		t.Errorf("named answers SOA . with %v", m)
	}
	r = c.do("GET", "/api/v1/zones/%2E", nil)
	expect(t, r, 200, "get")
	if r.str("name") != "." {
		t.Errorf("get answered %s", r.raw)
	}
	// The Go client addresses it so too (a path /zones/. would be the
	// list).
	cl, err := client.New(c.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	if zi, err := cl.GetZone(context.Background(), "."); err != nil || zi.Name != "." || zi.Serial == nil || *zi.Serial != 2026112701 {
		t.Errorf("client GetZone(\".\") = %+v, %v", zi, err)
	}
	r = c.do("GET", "/api/v1/zones", nil)
	expect(t, r, 200, "list")
	if !strings.Contains(string(r.raw), `"."`) {
		t.Errorf("list lacks the root zone: %s", r.raw)
	}
	expect(t, c.do("POST", "/api/v1/zones/%2E/records", map[string]any{"name": "mail.example", "type": "A", "value": "192.0.2.25", "ttl": 300}), http.StatusCreated, "add a record")
	if got := answers(query(t, ns, "mail.example.", dns.TypeA), dns.TypeA); !slices.Equal(got, []string{"192.0.2.25"}) {
		t.Errorf("named serves %v at mail.example.", got)
	}
	r = c.do("GET", "/api/v1/zones/%2E/records", nil)
	expect(t, r, 200, "records")
	if !strings.Contains(string(r.raw), "mail.example.") || !strings.Contains(string(r.raw), "www.example.") {
		t.Errorf("records: %s", r.raw)
	}
	expect(t, c.do("DELETE", "/api/v1/zones/%2E", nil), 200, "delete")
	if m := query(t, ns, ".", dns.TypeSOA); m.Rcode != dns.RcodeRefused {
		t.Errorf("named answers %s for the deleted root zone, want REFUSED", dns.RcodeToString[m.Rcode])
	}
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files left after the delete: %v", names)
	}
}
