package integration

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// startViewsNamed starts named with two views: internal, matched by its
// own TSIG key, holding conf.test from named.conf; and external (the
// rest, the API's own update key included), holding nothing yet.
func startViewsNamed(t *testing.T) *testbind.Server {
	t.Helper()
	views := []testbind.View{{Name: "internal", Key: true}, {Name: "external"}}
	return testbind.Start(t, &testbind.Options{
		Views: views,
		BeforeStart: func(s *testbind.Server) error {
			p, err := s.WriteViewZone("internal", "conf.test", testbind.MinimalZone("conf.test", 7))
			if err != nil {
				return err
			}
			views[0].Config = testbind.ZoneStatement("conf.test", p, s.ViewKeys["internal"].Name)
			return nil
		},
	})
}

// viewsCaddyfile is the zone_api block's views for startViewsNamed's
// named: internal with its key, external the default (the handler's own
// update key reaches it).
func viewsCaddyfile(ns *testbind.Server) string {
	return `view internal {
				update_key_file ` + ns.ViewKeys["internal"].File + `
			}
			view external {
				default
			}`
}

// viewAnswers asks named as a client of view for name's A records (none
// for NXDOMAIN).
func viewAnswers(t *testing.T, ns *testbind.Server, view, name string) []string {
	t.Helper()
	rrs, err := ns.Query(view, name, dns.TypeA)
	if err != nil && strings.HasSuffix(err.Error(), "NXDOMAIN") {
		return nil
	}
	if err != nil {
		t.Fatalf("query %s in view %s: %v", name, view, err)
	}
	var out []string
	for _, rr := range rrs {
		if a, ok := rr.(*dns.A); ok {
			out = append(out, a.A.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestViewsEndToEnd: with named's two views configured in zone_api, the
// same zone name is created in each with different records, read,
// changed and deleted in each by ?view= (the default view without it),
// and named answers each view's own data to that view's clients; the list
// shows both with their views; a named.conf zone of the second view is
// addressed with ?view=; bad and unknown views are 4xx JSON that change
// nothing; a token scoped to one view gets 403 on the other.
func TestViewsEndToEnd(t *testing.T) {
	ns := startViewsNamed(t)
	const scoped = "views-internal-token-0b7e"
	c := startCaddy(t, ns, caddyOpts{extra: viewsCaddyfile(ns) + `
			auth static {
				token admin ` + sha256Hex(testToken) + `
				token int ` + sha256Hex(scoped) + ` {
					zones same.test@internal conf.test
					views internal
				}
			}`})
	const zone = "same.test"

	// The same name in both views, with different addresses.
	internal := zoneBody(zone)
	internal["zoneConfig"].(map[string]any)["records"] = []map[string]any{{"name": "www", "type": "A", "value": "10.0.0.80"}}
	r := c.do("POST", "/api/v1/zones?view=internal", internal)
	expect(t, r, http.StatusCreated, "create in view internal")
	if loc := r.header.Get("Location"); loc != "/api/v1/zones/"+zone+"?view=internal" {
		t.Errorf("Location = %q", loc)
	}
	if v := r.body["zone"].(map[string]any)["view"]; v != "internal" {
		t.Errorf("created zone's view = %v", v)
	}
	r = c.do("POST", "/api/v1/zones", zoneBody(zone))
	expect(t, r, http.StatusCreated, "create in the default view")
	if loc := r.header.Get("Location"); loc != "/api/v1/zones/"+zone {
		t.Errorf("Location = %q", loc)
	}
	expect(t, c.do("POST", "/api/v1/zones?view=internal", internal), http.StatusConflict, "create again in internal")

	if got := viewAnswers(t, ns, "internal", "www."+zone); !slices.Equal(got, []string{"10.0.0.80"}) {
		t.Errorf("internal view: www = %v", got)
	}
	if got := viewAnswers(t, ns, "external", "www."+zone); !slices.Equal(got, []string{"192.0.2.80"}) {
		t.Errorf("external view: www = %v", got)
	}
	// The files do not collide.
	intFile := filepath.Join(ns.ZoneDir, "views", "internal", zone+".zone")
	for _, f := range []string{intFile, filepath.Join(ns.ZoneDir, zone+".zone")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("zone file: %v", err)
		}
	}

	// Reads by view.
	r = c.do("GET", "/api/v1/zones/"+zone+"?view=internal", nil)
	expect(t, r, http.StatusOK, "get in internal")
	if r.str("view") != "internal" || r.str("filePath") != intFile || r.body["managed"] != true {
		t.Errorf("get in internal: %s", r.raw)
	}
	r = c.do("GET", "/api/v1/zones/"+zone, nil)
	expect(t, r, http.StatusOK, "get in the default view")
	if r.str("view") != "external" || r.str("filePath") != filepath.Join(ns.ZoneDir, zone+".zone") {
		t.Errorf("get in the default view: %s", r.raw)
	}
	gc, err := client.New(c.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	if zi, err := gc.InView("internal").GetZone(context.Background(), zone); err != nil || zi.View != "internal" || zi.FilePath != intFile {
		t.Errorf("Go client InView(internal).GetZone = %+v, %v", zi, err)
	}
	r = c.do("GET", "/api/v1/zones/"+zone+"/records?view=internal&type=A&name=www", nil)
	expect(t, r, http.StatusOK, "records in internal")
	if !strings.Contains(string(r.raw), "10.0.0.80") || strings.Contains(string(r.raw), "192.0.2.80") {
		t.Errorf("records in internal: %s", r.raw)
	}

	// Record changes reach only the view named.
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records?view=internal",
		map[string]any{"name": "api", "type": "A", "value": "10.0.0.9"}), http.StatusCreated, "add in internal")
	if got := viewAnswers(t, ns, "internal", "api."+zone); !slices.Equal(got, []string{"10.0.0.9"}) {
		t.Errorf("internal view: api = %v", got)
	}
	if got := viewAnswers(t, ns, "external", "api."+zone); len(got) != 0 {
		t.Errorf("external view answers the record added in internal: %v", got)
	}
	expect(t, c.do("PUT", "/api/v1/zones/"+zone+"/records?view=internal",
		map[string]any{"name": "api", "type": "A", "currentValue": "10.0.0.9", "newValue": "10.0.0.10"}), http.StatusOK, "update in internal")
	if got := viewAnswers(t, ns, "internal", "api."+zone); !slices.Equal(got, []string{"10.0.0.10"}) {
		t.Errorf("internal view after the update: api = %v", got)
	}
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records",
		map[string]any{"name": "api", "type": "A", "value": "192.0.2.9"}), http.StatusCreated, "add in the default view")
	if got := viewAnswers(t, ns, "internal", "api."+zone); !slices.Equal(got, []string{"10.0.0.10"}) {
		t.Errorf("internal view after the default view's add: api = %v", got)
	}

	// Every control command names the view.
	for _, op := range []string{"freeze", "reload", "thaw", "notify"} {
		expect(t, c.do("POST", "/api/v1/zones/"+zone+"/"+op+"?view=internal", nil), http.StatusOK, op+" in internal")
	}
	expect(t, c.do("GET", "/api/v1/zones/"+zone+"/status?view=internal", nil), http.StatusOK, "status in internal")
	r = c.do("PATCH", "/api/v1/zones/"+zone+"?view=internal", map[string]any{"alsoNotify": []string{"192.0.2.77"}})
	expect(t, r, http.StatusOK, "modify in internal")
	if out, err := ns.RNDC("showzone", zone, "IN", "internal"); err != nil || !strings.Contains(out, "192.0.2.77") {
		t.Errorf("internal's statement after the change: %v %s", err, out)
	}
	if out, err := ns.RNDC("showzone", zone, "IN", "external"); err != nil || strings.Contains(out, "192.0.2.77") {
		t.Errorf("external's statement changed too: %v %s", err, out)
	}

	// The list shows both, each with its view, in name then view order.
	r = c.do("GET", "/api/v1/zones", nil)
	expect(t, r, http.StatusOK, "list")
	items, _ := r.body["items"].([]any)
	var got []string
	for _, it := range items {
		m := it.(map[string]any)
		got = append(got, m["name"].(string)+"@"+m["view"].(string))
	}
	if !slices.Equal(got, []string{zone + "@external", zone + "@internal"}) {
		t.Errorf("list items = %v (body %s)", got, r.raw)
	}
	r = c.do("GET", "/api/v1/zones?limit=1", nil)
	if r.str("nextCursor") != zone+"@external" {
		t.Errorf("first page's cursor = %q", r.str("nextCursor"))
	}
	r = c.do("GET", "/api/v1/zones?limit=1&cursor="+zone+"@external", nil)
	if items, _ := r.body["items"].([]any); len(items) != 1 || items[0].(map[string]any)["view"] != "internal" {
		t.Errorf("second page: %s", r.raw)
	}
	r = c.do("GET", "/api/v1/zones?view=internal", nil)
	if items, _ := r.body["items"].([]any); len(items) != 1 || items[0].(map[string]any)["view"] != "internal" {
		t.Errorf("list of internal: %s", r.raw)
	}

	// A named.conf zone of the second view is addressed with ?view=.
	r = c.do("GET", "/api/v1/zones/conf.test?view=internal", nil)
	expect(t, r, http.StatusOK, "named.conf zone in internal")
	if r.str("view") != "internal" || r.body["managed"] != false || r.body["serial"] != float64(7) {
		t.Errorf("named.conf zone in internal: %s", r.raw)
	}
	expect(t, c.do("POST", "/api/v1/zones/conf.test/records?view=internal",
		map[string]any{"name": "x", "type": "A", "value": "10.9.9.9"}), http.StatusCreated, "add to the named.conf zone in internal")
	if got := viewAnswers(t, ns, "internal", "x.conf.test"); !slices.Equal(got, []string{"10.9.9.9"}) {
		t.Errorf("internal view: x.conf.test = %v", got)
	}
	expectError(t, c.do("GET", "/api/v1/zones/conf.test", nil), http.StatusNotFound, "Not Found", "conf.test")

	// Bad and unknown views: 4xx JSON, nothing changed.
	before := dirNames(t, ns.ZoneDir)
	for _, tc := range []struct {
		method, path string
		status       int
		msg          string
	}{
		{"GET", "/api/v1/zones/" + zone + "?view=a%3Bb", http.StatusBadRequest, "invalid view"},
		{"GET", "/api/v1/zones/" + zone + "?view=", http.StatusBadRequest, "view is empty"},
		{"DELETE", "/api/v1/zones/" + zone + "?view=internal&view=external", http.StatusBadRequest, "given 2 times"},
		{"DELETE", "/api/v1/zones/" + zone + "?view=in%20ternal", http.StatusBadRequest, "invalid view"},
		{"DELETE", "/api/v1/zones/" + zone + "?view=nope", http.StatusNotFound, `view "nope" is not configured; the views are: internal, external`},
		{"POST", "/api/v1/zones/" + zone + "/freeze?view=nope", http.StatusNotFound, "not configured"},
		{"GET", "/api/v1/zones?view=nope", http.StatusNotFound, "not configured"},
	} {
		r := c.do(tc.method, tc.path, nil)
		expectError(t, r, tc.status, http.StatusText(tc.status), tc.msg)
	}
	r = c.do("POST", "/api/v1/zones?view=nope", zoneBody("new.test"))
	expectError(t, r, http.StatusNotFound, "Not Found", "not configured")
	if after := dirNames(t, ns.ZoneDir); !slices.Equal(before, after) {
		t.Errorf("zone directory changed: %v → %v", before, after)
	}
	for _, view := range []string{"internal", "external"} {
		if _, err := ns.RNDC("zonestatus", zone, "IN", view); err != nil {
			t.Errorf("zone in %s after the refused requests: %v", view, err)
		}
	}

	// A token scoped to view internal: 403 on the other view (and on the
	// default one, which is external), before anything is done.
	sc := func(method, path string, body any) *response {
		return c.doAuth(method, path, body, "Bearer "+scoped)
	}
	expect(t, sc("GET", "/api/v1/zones/"+zone+"?view=internal", nil), http.StatusOK, "scoped read in internal")
	for _, p := range []string{"/api/v1/zones/" + zone + "?view=external", "/api/v1/zones/" + zone} {
		expectError(t, sc("DELETE", p, nil), http.StatusForbidden, "Forbidden", "no access to zone same.test")
	}
	expectError(t, sc("POST", "/api/v1/zones?view=external", zoneBody("other.test")), http.StatusForbidden, "Forbidden", "in view external")
	r = sc("GET", "/api/v1/zones", nil)
	if items, _ := r.body["items"].([]any); len(items) != 1 || items[0].(map[string]any)["view"] != "internal" {
		t.Errorf("scoped list: %s", r.raw)
	}
	if got := viewAnswers(t, ns, "external", "www."+zone); !slices.Equal(got, []string{"192.0.2.80"}) {
		t.Errorf("external's zone after the refused delete: www = %v", got)
	}

	// The reconcile covers every view: a file no zone of view internal
	// uses is moved aside, and the report names the view.
	orphan := filepath.Join(ns.ZoneDir, "views", "internal", "orphan.test.zone")
	if err := os.WriteFile(orphan, []byte(testbind.MinimalZone("orphan.test", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.do("POST", "/api/v1/server/reconcile", nil)
	expect(t, r, http.StatusOK, "reconcile")
	found := false
	for _, f := range r.body["fixed"].([]any) {
		m := f.(map[string]any)
		if m["zone"] == "orphan.test" && m["action"] == "moved-aside" && m["view"] == "internal" {
			found = true
		}
	}
	// The restart watch's first look (about 4 s after the start) may have
	// moved it aside first, as its own reconcile of view internal.
	if !found && strings.Contains(c.Log(), `"zone":"orphan.test","action":"moved-aside"`) {
		found = true
	}
	if _, err := os.Stat(orphan); !found || !os.IsNotExist(err) {
		t.Errorf("reconcile of view internal's stray file: %s (file: %v)", r.raw, err)
	}

	// Delete in one view: the other view's zone stays.
	expect(t, sc("DELETE", "/api/v1/zones/"+zone+"?view=internal", nil), http.StatusOK, "delete in internal")
	if _, err := ns.RNDC("zonestatus", zone, "IN", "internal"); err == nil {
		t.Error("internal's zone still in named")
	}
	if _, err := os.Stat(intFile); !os.IsNotExist(err) {
		t.Errorf("internal's zone file after the delete: %v", err)
	}
	if got := viewAnswers(t, ns, "external", "www."+zone); !slices.Equal(got, []string{"192.0.2.80"}) {
		t.Errorf("external view after internal's delete: www = %v", got)
	}
	expect(t, c.do("GET", "/api/v1/zones/"+zone+"?view=internal", nil), http.StatusNotFound, "get in internal after its delete")
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), http.StatusOK, "get in the default view after internal's delete")
}

// TestViewOnServerWithoutViews: on a server without views configured,
// ?view= is refused with 404 JSON before anything is done, and requests
// without it behave as they always did (the zone's answers carry no view).
func TestViewOnServerWithoutViews(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	r := c.do("POST", "/api/v1/zones?view=internal", zoneBody("plain.test"))
	expectError(t, r, http.StatusNotFound, "Not Found", "zone_api addresses no views")
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("zone directory after the refused create: %v", names)
	}
	r = c.do("POST", "/api/v1/zones", zoneBody("plain.test"))
	expect(t, r, http.StatusCreated, "create")
	if strings.Contains(string(r.raw), `"view"`) {
		t.Errorf("create answer names a view: %s", r.raw)
	}
	for _, p := range []string{"/api/v1/zones/plain.test", "/api/v1/zones"} {
		r = c.do("GET", p, nil)
		expect(t, r, http.StatusOK, p)
		if strings.Contains(string(r.raw), `"view"`) {
			t.Errorf("GET %s names a view: %s", p, r.raw)
		}
	}
	expectError(t, c.do("DELETE", "/api/v1/zones/plain.test?view=x", nil), http.StatusNotFound, "Not Found", "not configured")
	expect(t, c.do("GET", "/api/v1/zones/plain.test", nil), http.StatusOK, "zone kept")
	// named's name of its only view, which ?all=true lists, addresses the
	// zones as no view does.
	for _, p := range []string{"/api/v1/zones/plain.test?view=_default", "/api/v1/zones?view=_default", "/api/v1/zones/plain.test/changes?view=_default"} {
		expect(t, c.do("GET", p, nil), http.StatusOK, p)
	}
	expect(t, c.do("POST", "/api/v1/zones/plain.test/records?view=_default", map[string]any{"name": "v", "type": "A", "value": "192.0.2.4"}), http.StatusCreated, "add in _default")
}

// TestViewsNamedOnly: named has views that zone_api is not told of (or
// one it is told of that named lacks): what named answers is explained as
// a 4xx, and nothing is left behind.
func TestViewsNamedOnly(t *testing.T) {
	ns := startViewsNamed(t)
	for _, view := range []string{"internal", "external"} {
		p, err := ns.WriteViewZone(view, "twice.test", testbind.MinimalZone("twice.test", 1))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := ns.RNDC("addzone", "twice.test", "IN", view, `{ type primary; file "`+p+`"; };`); err != nil {
			t.Fatalf("addzone in %s: %v %s", view, err, out)
		}
	}
	c := startCaddy(t, ns, caddyOpts{extra: `view ghost {
				update_key ghost-key hmac-sha256 c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0
			}`})
	// No default view: a zone route without ?view= names the views.
	expectError(t, c.do("GET", "/api/v1/zones/twice.test", nil), http.StatusBadRequest, "Bad Request", "none is the default")
	// A view zone_api has that named lacks.
	r := c.do("POST", "/api/v1/zones?view=ghost", zoneBody("new.test"))
	expectError(t, r, http.StatusNotFound, "Not Found", "named has no such view")
	if _, err := os.Stat(filepath.Join(ns.ZoneDir, "views", "ghost", "new.test.zone")); !os.IsNotExist(err) {
		t.Errorf("zone file left after the refused create: %v", err)
	}
	expectError(t, c.do("GET", "/api/v1/zones/twice.test?view=ghost", nil), http.StatusNotFound, "Not Found", "named has no such view")

	// Without any view configured in zone_api, on named with views.
	c2 := startCaddy(t, ns, caddyOpts{})
	expectError(t, c2.do("GET", "/api/v1/zones/twice.test", nil), http.StatusBadRequest, "Bad Request", "in several views of named")
	r = c2.do("POST", "/api/v1/zones", zoneBody("new.test"))
	expectError(t, r, http.StatusBadRequest, "Bad Request", "named has views")
	if _, err := os.Stat(filepath.Join(ns.ZoneDir, "new.test.zone")); !os.IsNotExist(err) {
		t.Errorf("zone file left after the refused create: %v", err)
	}
	expect(t, c2.do("GET", "/api/v1/zones/conf.test", nil), http.StatusOK, "a zone in one view only, found by named without a view")
}

// TestViewsCatalog: with views, the catalog zone lives in the default
// view and lists that view's zones only: a zone created in another view
// is no member.
func TestViewsCatalog(t *testing.T) {
	ns := startViewsNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: viewsCaddyfile(ns) + `
			catalog catalog.views.test`})
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("ext.test")), http.StatusCreated, "create in the default view")
	expect(t, c.do("POST", "/api/v1/zones?view=internal", zoneBody("int.test")), http.StatusCreated, "create in internal")
	r := c.do("GET", "/api/v1/catalog", nil)
	expect(t, r, http.StatusOK, "catalog")
	if r.body["count"] != float64(1) || !strings.Contains(string(r.raw), `"zone":"ext.test"`) || strings.Contains(string(r.raw), "int.test") {
		t.Errorf("catalog = %s", r.raw)
	}
	if _, err := ns.RNDC("zonestatus", "catalog.views.test", "IN", "external"); err != nil {
		t.Errorf("the catalog zone in the default view: %v", err)
	}
	if _, err := ns.RNDC("zonestatus", "catalog.views.test", "IN", "internal"); err == nil {
		t.Error("the catalog zone is in view internal too")
	}
	// Deleting a zone of another view leaves the catalog alone.
	expect(t, c.do("DELETE", "/api/v1/zones/int.test?view=internal", nil), http.StatusOK, "delete in internal")
	r = c.do("GET", "/api/v1/catalog", nil)
	if r.body["count"] != float64(1) {
		t.Errorf("catalog after internal's delete = %s", r.raw)
	}
}

// TestViewsPowerDNS: the PowerDNS-compatible API names no view: it reads
// the default view's zone of a name held in two views, and a token whose
// scope names views gets 403 on a zone and an empty zone list there.
func TestViewsPowerDNS(t *testing.T) {
	ns := startViewsNamed(t)
	const scoped = "views-pdns-token-51a0"
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns\n" + viewsCaddyfile(ns) + `
			auth static {
				token admin ` + sha256Hex(testToken) + `
				token ext ` + sha256Hex(scoped) + ` {
					views external
				}
			}`})
	internal := zoneBody("two.test")
	internal["zoneConfig"].(map[string]any)["records"] = []map[string]any{{"name": "www", "type": "A", "value": "10.0.0.80"}}
	expect(t, c.do("POST", "/api/v1/zones?view=internal", internal), http.StatusCreated, "create in internal")
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("two.test")), http.StatusCreated, "create in the default view")
	r := c.pdns(testToken, "GET", zonesPath+"/two.test.", nil)
	expect(t, r, http.StatusOK, "PowerDNS GET zone")
	if !strings.Contains(string(r.raw), "192.0.2.80") || strings.Contains(string(r.raw), "10.0.0.80") {
		t.Errorf("PowerDNS zone = %s, want the default view's", r.raw)
	}
	expect(t, c.pdns(scoped, "GET", zonesPath+"/two.test.", nil), http.StatusForbidden, "view-scoped token on PowerDNS")
	r = c.pdns(scoped, "GET", zonesPath, nil)
	expect(t, r, http.StatusOK, "view-scoped token's PowerDNS zone list")
	if strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("view-scoped token's PowerDNS zone list = %s, want []", r.raw)
	}
	// The same token through the REST API, in its view.
	expect(t, c.doAuth("GET", "/api/v1/zones/two.test", nil, "Bearer "+scoped), http.StatusOK, "view-scoped token in its (default) view")
}
