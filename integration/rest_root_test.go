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
	r := c.do("POST", "/api/v1/zones", rootZoneBody())
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
	// Again, from the zone cache (its key of the root is "").
	if r = c.do("GET", "/api/v1/zones/%2E", nil); r.status != 200 || r.str("name") != "." {
		t.Errorf("second get answered %d %s", r.status, r.raw)
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

// rootZoneBody is a create of the root zone with its name server's
// address (every name is in the root zone).
func rootZoneBody() map[string]any {
	return map[string]any{"zoneName": ".", "zoneType": "primary", "zoneConfig": map[string]any{
		"ttl":           3600,
		"soa":           map[string]any{"primaryNs": "a.root-servers.test.", "adminEmail": "hostmaster", "serial": 2026112701},
		"nameServers":   []string{"a.root-servers.test."},
		"nameServerIps": map[string]string{"a.root-servers.test.": "192.0.2.53"},
		"records":       []map[string]any{{"name": "www.example", "type": "A", "value": "192.0.2.80", "ttl": 300}},
	}}
}

// TestHistoryRootZone: the history records the root zone's changes under
// its name ".": the API's create, and a change made outside the API
// (nsupdate), which named's NOTIFY for "." announces and the catch-up
// reads by IXFR of ".". Before, the NOTIFY's name lost its dot (the
// empty name, no zone) and the external change was never recorded.
func TestHistoryRootZone(t *testing.T) {
	ns, c := notifyOnly(t)
	expect(t, c.do("POST", "/api/v1/zones", rootZoneBody()), http.StatusCreated, "create")
	nsupdateView(t, ns, ns.TSIGKeyFile, ".", "update add ext.example. 60 IN A 192.0.2.7\n")
	serial, _ := soaOn(ns, ".")
	var cs []change
	waitFor(t, "the nsupdate change in the history", func() bool {
		cs = c.changes(testToken, "/api/v1/zones/%2E/changes")
		return len(cs) > 0 && cs[len(cs)-1].SerialAfter != nil && *cs[len(cs)-1].SerialAfter == serial
	})
	if first := cs[0]; first.Zone != "." || first.Type != "zone.created" {
		t.Errorf("first change %s of zone %q; want zone.created of \".\"", first, first.Zone)
	}
	last := cs[len(cs)-1]
	if last.Zone != "." || last.Source != "external" || strings.Join(changeRecords(last.Added), ", ") != "ext.example A 192.0.2.7" {
		t.Errorf("last change %s of zone %q; want external, adding ext.example A 192.0.2.7", last, last.Zone)
	}
}

// TestRootZoneCatalogAndRestart: with the catalog on, the root zone is a
// member (its PTR "."), the catalog's members are the managed zones, and
// they stay so across a restart of named and a full reconcile, which
// finds nothing to fix; named serves the root zone again after its
// restart.
func TestRootZoneCatalogAndRestart(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: "catalog catalog.root.test"})
	expect(t, c.do("POST", "/api/v1/zones", rootZoneBody()), http.StatusCreated, "create the root zone")
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("other.test")), http.StatusCreated, "create other.test")
	want := map[string]bool{".": true, "other.test": true}
	checkCatalog(t, c, ns, want, "after the creates")
	ns.Restart(t)
	r := c.do("POST", "/api/v1/server/reconcile", nil)
	expect(t, r, http.StatusOK, "reconcile")
	for _, k := range []string{"fixed", "pending", "problems"} {
		if l := toSlice(r.body[k]); len(l) != 0 {
			t.Errorf("reconcile after named's restart: %s %v (%s)", k, l, r.raw)
		}
	}
	checkCatalog(t, c, ns, want, "after named's restart and a reconcile")
	if m := query(t, ns, ".", dns.TypeSOA); len(answers(m, dns.TypeSOA)) != 1 {
		t.Errorf("named answers SOA . after its restart with %v", m)
	}
	expect(t, c.do("DELETE", "/api/v1/zones/%2E", nil), 200, "delete")
	checkCatalog(t, c, ns, map[string]bool{"other.test": true}, "after the delete")
}

// TestRootZoneEveryZoneList: the list of every zone named serves
// (all=true, from its statistics channel) shows the root zone as "."
// (managed, made by the API), and a delete drops it from that list at
// once (the inventory forgets "."), not at the next refresh.
func TestRootZoneEveryZoneList(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: "statistics_channel " + ns.StatsAddr + "\n\t\t\tinventory_refresh 1h"})
	expect(t, c.do("POST", "/api/v1/zones", rootZoneBody()), http.StatusCreated, "create the root zone")
	waitFor(t, "the root zone in the list of every zone", func() bool {
		return slices.Contains(listAll(t, c, testToken, "", 100), "./_default true api")
	})
	expect(t, c.do("DELETE", "/api/v1/zones/%2E", nil), 200, "delete")
	if l := listAll(t, c, testToken, "", 100); slices.ContainsFunc(l, func(s string) bool { return strings.HasPrefix(s, "./") }) {
		t.Errorf("the deleted root zone is still listed: %q", l)
	}
}
