package integration

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// originServer starts a named with two views and zones of every origin
// but the API's: conf1.test in named.conf's external view, conf2.test in
// its internal view (matched by the view's own key), and, added with the
// rndc program, nzd1.test and nzd2.test in external and nzd3.test in
// internal. Nothing in the zone directory is theirs.
func originServer(t *testing.T) *testbind.Server {
	t.Helper()
	// named.conf names the files relative to named's directory, where
	// WriteViewZone puts them.
	rel := func(view, zone string) string { return "viewzones/" + view + "/" + zone + ".zone" }
	ns := testbind.Start(t, &testbind.Options{
		Views: []testbind.View{
			{Name: "internal", Key: true, Config: testbind.ZoneStatement("conf2.test", rel("internal", "conf2.test"), "")},
			{Name: "external", Config: testbind.ZoneStatement("conf1.test", rel("external", "conf1.test"), "")},
		},
		BeforeStart: func(s *testbind.Server) error {
			for _, z := range [][2]string{{"external", "conf1.test"}, {"internal", "conf2.test"}} {
				if _, err := s.WriteViewZone(z[0], z[1], testbind.MinimalZone(z[1], 11)); err != nil {
					return err
				}
			}
			return nil
		},
	})
	for _, z := range [][2]string{{"external", "nzd1.test"}, {"external", "nzd2.test"}, {"internal", "nzd3.test"}} {
		p, err := ns.WriteViewZone(z[0], z[1], testbind.MinimalZone(z[1], 22))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := ns.RNDC("addzone", z[1], "IN", z[0], fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
			t.Fatalf("rndc addzone %s in %s: %v %s", z[1], z[0], err, out)
		}
	}
	return ns
}

// listAll pages through GET /zones?all=true (with the query q) with
// pages of size limit and returns "name/view managed source" per zone.
func listAll(t *testing.T, c *caddy, tok, q string, limit int) []string {
	t.Helper()
	var out []string
	cursor := ""
	for i := 0; ; i++ {
		path := fmt.Sprintf("/api/v1/zones?all=true&limit=%d%s", limit, q)
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := c.as(tok, "GET", path, nil)
		expect(t, r, 200, "list every zone")
		items, _ := r.body["items"].([]any)
		if len(items) > limit || i > 50 {
			t.Fatalf("page %d of %d items, limit %d: %s", i, len(items), limit, r.raw)
		}
		for _, it := range items {
			m := it.(map[string]any)
			out = append(out, fmt.Sprintf("%s/%s %v %s", m["name"], m["view"], m["managed"], m["source"]))
		}
		cursor = r.str("nextCursor")
		if cursor == "" {
			return out
		}
	}
}

// TestZonesOfEveryOrigin: a named with zones of every origin (two in
// named.conf, one of them in a second view; three added with the rndc
// program before Caddy starts; two created through the API, one per
// view). The list of every zone (all=true) shows each with the right
// managed, source and view, while the default list stays the API's
// zones; paging over it in pages of 1, 2 and 3 gives the same list, also
// while zones come and go between pages; a token scoped to two zones
// sees only those. Adopt works for a zone of the new-zone database
// (without reloading it: it answers throughout, serial and load time
// unchanged; with grantUpdateKey its records become changeable) and is
// refused for the named.conf one with the exact clause to add there.
// Every zone's capabilities match what each operation then does.
func TestZonesOfEveryOrigin(t *testing.T) {
	ns := originServer(t)
	tok, hash := tokens(t, "admin", "tenant")
	c := startCaddy(t, ns, caddyOpts{extra: viewsCaddyfile(ns) + fmt.Sprintf(`
			statistics_channel %s
			inventory_refresh 1s
			auth static {
				token admin %s
				token tenant %s {
					zones nzd1.test api1.test
				}
			}`, ns.StatsAddr, hash["admin"], hash["tenant"])})
	admin := tok["admin"]
	expect(t, c.as(admin, "POST", "/api/v1/zones", zoneBody("api1.test")), http.StatusCreated, "create in external (the default view)")
	expect(t, c.as(admin, "POST", "/api/v1/zones?view=internal", zoneBody("api2.test")), http.StatusCreated, "create in internal")

	// The default list is the API's zones, as bindcar lists them.
	r := c.as(admin, "GET", "/api/v1/zones", nil)
	expect(t, r, 200, "default list")
	if fmt.Sprint(r.body["zones"]) != "[api1.test api2.test]" {
		t.Errorf("default list: %s", r.raw)
	}
	want := []string{
		"api1.test/external true api",
		"api2.test/internal true api",
		"conf1.test/external false named.conf",
		"conf2.test/internal false named.conf",
		"nzd1.test/external false nzd",
		"nzd2.test/external false nzd",
		"nzd3.test/internal false nzd",
	}
	// Where a zone named serves comes from is learned by zonestatus in
	// the background (at most ClassifyWait before the first page; on a
	// loaded machine longer), and the list then catches up: wait until it
	// has, as a client polling would, then check every page exactly.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if got := strings.Join(listAll(t, c, admin, "", 100), "\n"); !strings.Contains(got, "%!s(<nil>)") || time.Now().After(deadline) {
			break
		}
	}
	for _, limit := range []int{1, 2, 3, 100} {
		if got := listAll(t, c, admin, "", limit); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("all zones in pages of %d:\n%s\nwant\n%s", limit, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for q, w := range map[string][]string{
		"&managed=false&source=nzd": {"nzd1.test/external false nzd", "nzd2.test/external false nzd", "nzd3.test/internal false nzd"},
		"&view=internal":            {"api2.test/internal true api", "conf2.test/internal false named.conf", "nzd3.test/internal false nzd"},
	} {
		if got := listAll(t, c, admin, q, 2); strings.Join(got, "\n") != strings.Join(w, "\n") {
			t.Errorf("filter %s: %v, want %v", q, got, w)
		}
	}
	expectError(t, c.as(admin, "GET", "/api/v1/zones?source=nzd", nil), 400, "Bad Request", "all=true")
	expectError(t, c.as(admin, "GET", "/api/v1/zones?all=true&source=zonefile", nil), 400, "Bad Request", "source must be")

	// The scoped token sees its two zones only, managed or not.
	if got := listAll(t, c, tok["tenant"], "", 1); strings.Join(got, " | ") != "api1.test/external true api | nzd1.test/external false nzd" {
		t.Errorf("tenant's list: %v", got)
	}

	// Paging is stable while zones come and go between pages: every zone
	// there throughout is listed once, in order.
	pagedWhileChanging(t, c, admin, ns, want)

	// Adopt: the named.conf zone is refused with the clause to add.
	r = c.as(admin, "POST", "/api/v1/zones/conf1.test/adopt", nil)
	expectError(t, r, http.StatusConflict, "Conflict", "configured in named.conf")
	if r.str("clause") != `allow-update { key "zoneapi-update"; };` || !strings.Contains(r.str("statement"), `zone "conf1.test"`) ||
		!strings.Contains(r.str("message"), r.str("clause")) {
		t.Errorf("adopt refusal: %s", r.raw)
	}

	// Adopt of an NZD zone: it keeps answering, same serial, not reloaded.
	for _, tc := range []struct {
		zone, query string
		granted     string
	}{
		{"nzd1.test", "", ""},
		{"nzd2.test", "?grantUpdateKey=true", `allow-update { key "zoneapi-update"; };`},
	} {
		before := c.as(admin, "GET", "/api/v1/zones/"+tc.zone, nil)
		expect(t, before, 200, "get before adopt")
		stop := answersThroughout(t, ns, tc.zone, 22)
		r := c.as(admin, "POST", "/api/v1/zones/"+tc.zone+"/adopt"+tc.query, nil)
		if failures := stop(); failures != "" {
			t.Errorf("%s did not answer throughout its adoption: %s", tc.zone, failures)
		}
		expect(t, r, 200, "adopt "+tc.zone)
		if r.str("granted") != tc.granted {
			t.Errorf("adopt %s granted %q, want %q", tc.zone, r.str("granted"), tc.granted)
		}
		after := c.as(admin, "GET", "/api/v1/zones/"+tc.zone, nil)
		if after.body["managed"] != true || after.str("source") != "api" ||
			after.body["serial"] != before.body["serial"] || after.str("lastLoaded") != before.str("lastLoaded") {
			t.Errorf("%s after adoption (serial and load time must not change):\nbefore %s\nafter  %s", tc.zone, before.raw, after.raw)
		}
		expectError(t, c.as(admin, "POST", "/api/v1/zones/"+tc.zone+"/adopt", nil), http.StatusConflict, "Conflict", "managed by the API already")
	}
	r = c.as(admin, "GET", "/api/v1/zones", nil)
	if fmt.Sprint(r.body["zones"]) != "[api1.test api2.test nzd1.test nzd2.test]" {
		t.Errorf("the default list after adoption: %s", r.raw)
	}

	// Capabilities match what each operation then does.
	for _, z := range [][2]string{{"conf1.test", ""}, {"nzd1.test", ""}, {"nzd2.test", ""}, {"api1.test", ""},
		{"conf2.test", "internal"}, {"nzd3.test", "internal"}, {"api2.test", "internal"}} {
		checkCapabilities(t, c, admin, z[0], z[1])
	}
}

// pagedWhileChanging lists every zone in pages of 2, adding a zone (with
// the rndc program) and deleting it again between pages, and checks that
// the zones of want are each listed once, in order.
func pagedWhileChanging(t *testing.T, c *caddy, tok string, ns *testbind.Server, want []string) {
	t.Helper()
	p, err := ns.WriteViewZone("external", "aaa.test", testbind.MinimalZone("aaa.test", 1))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	cursor := ""
	for i := 0; i < 20; i++ {
		switch i % 2 {
		case 0:
			_, _ = ns.RNDC("addzone", "aaa.test", "IN", "external", fmt.Sprintf(`{ type primary; file %q; };`, p))
		case 1:
			_, _ = ns.RNDC("delzone", "aaa.test", "IN", "external")
		}
		time.Sleep(1100 * time.Millisecond) // a refresh of the inventory (1s)
		path := "/api/v1/zones?all=true&limit=2"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := c.as(tok, "GET", path, nil)
		expect(t, r, 200, "page")
		for _, it := range r.body["items"].([]any) {
			m := it.(map[string]any)
			if m["name"] != "aaa.test" {
				got = append(got, fmt.Sprintf("%s/%s %v %s", m["name"], m["view"], m["managed"], m["source"]))
			}
		}
		if cursor = r.str("nextCursor"); cursor == "" {
			break
		}
	}
	_, _ = ns.RNDC("delzone", "aaa.test", "IN", "external")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pages while zones changed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// answersThroughout queries the zone's SOA (external view) until the
// returned stop is called, and stop reports any answer that was not the
// SOA with serial (and that at least a few queries ran).
func answersThroughout(t *testing.T, ns *testbind.Server, zone string, serial uint32) (stop func() string) {
	var (
		done     atomic.Bool
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		n        int
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		cl := &dns.Client{Timeout: 2 * time.Second}
		for !done.Load() || n < 20 {
			m := new(dns.Msg)
			m.SetQuestion(dns.Fqdn(zone), dns.TypeSOA)
			// A query that times out is asked again (twice): on a loaded
			// machine named may take over a second to answer a UDP query,
			// which is not the zone failing to answer.
			in, _, err := cl.Exchange(m, ns.DNSAddr)
			for try := 0; try < 2 && err != nil && isTimeout(err); try++ {
				in, _, err = cl.Exchange(m, ns.DNSAddr)
			}
			mu.Lock()
			n++
			switch {
			case err != nil:
				failures = append(failures, err.Error())
			case in.Rcode != dns.RcodeSuccess || len(in.Answer) != 1:
				failures = append(failures, dns.RcodeToString[in.Rcode])
			case in.Answer[0].(*dns.SOA).Serial != serial:
				failures = append(failures, fmt.Sprint("serial ", in.Answer[0].(*dns.SOA).Serial))
			}
			mu.Unlock()
		}
	}()
	return func() string {
		done.Store(true)
		wg.Wait()
		return strings.Join(failures, ", ")
	}
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// checkCapabilities reads the capabilities of the zone (in view, "" for
// the default one) and tries each operation: it must succeed exactly
// when the capability says so (and fail with a 4xx otherwise). Delete,
// which ends the zone, is tried last.
func checkCapabilities(t *testing.T, c *caddy, tok, zone, view string) {
	t.Helper()
	at := func(suffix string, query ...string) string {
		if view != "" {
			query = append(query, "view="+view)
		}
		p := "/api/v1/zones/" + zone + suffix
		if len(query) > 0 {
			p += "?" + strings.Join(query, "&")
		}
		return p
	}
	r := c.as(tok, "GET", at(""), nil)
	expect(t, r, 200, "get "+zone)
	caps, _ := r.body["capabilities"].(map[string]any)
	if caps == nil {
		t.Fatalf("%s: no capabilities: %s", zone, r.raw)
	}
	allowed := func(what string) (bool, string) {
		m := caps[what].(map[string]any)
		reason, _ := m["reason"].(string)
		return m["allowed"] == true, reason
	}
	try := func(what string, r *response) {
		t.Helper()
		ok, reason := allowed(what)
		if did := r.status < 300; did != ok {
			t.Errorf("%s: capability %s allowed=%v (%s), but the operation answered %d %s", zone, what, ok, reason, r.status, r.raw)
		}
		if r.status >= 500 {
			t.Errorf("%s: %s answered %d: %s", zone, what, r.status, r.raw)
		}
	}
	try("records", c.as(tok, "POST", at("/records"), map[string]any{"name": "cap", "type": "TXT", "value": "capability"}))
	try("modify", c.as(tok, "PATCH", at(""), map[string]any{"alsoNotify": []string{}}))
	try("retransfer", c.as(tok, "POST", at("/retransfer"), nil))
	try("adopt", c.as(tok, "POST", at("/adopt"), nil))
	// Adoption changes what a delete needs: read it again.
	r = c.as(tok, "GET", at(""), nil)
	caps = r.body["capabilities"].(map[string]any)
	path := at("")
	if _, reason := allowed("delete"); strings.Contains(reason, "confirm=unmanaged") {
		path = at("", "confirm=unmanaged")
	}
	r = c.as(tok, "DELETE", path, nil)
	try("delete", r)
	if ok, _ := allowed("delete"); ok {
		// Durable at once, an adopted zone's file elsewhere included.
		expect(t, r, 200, zone+"'s delete")
		expect(t, c.as(tok, "GET", at(""), nil), 404, zone+" after its delete")
	}
}

// TestAdoptCommand: `caddy zoneapi-adopt` against a server with three
// zones added with the rndc program and one of named.conf: the dry run
// lists the four and adopts nothing; the run adopts the three (granting
// the update key, so their records change through the API) and reports
// the named.conf one with its clause; a second run finds nothing left
// to adopt but the named.conf zone, and exits 0.
func TestAdoptCommand(t *testing.T) {
	ns := testbind.Start(t, &testbind.Options{
		ExtraConfig: testbind.ZoneStatement("conf.test", "conf/conf.test.zone", ""),
		BeforeStart: func(s *testbind.Server) error {
			if err := os.MkdirAll(filepath.Join(s.Dir, "conf"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(s.Dir, "conf", "conf.test.zone"), []byte(testbind.MinimalZone("conf.test", 3)), 0o644)
		},
	})
	for _, z := range []string{"a.test", "b.test", "c.test"} {
		p, err := ns.WriteViewZone("added", z, testbind.MinimalZone(z, 5))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := ns.RNDC("addzone", z, fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
			t.Fatalf("rndc addzone %s: %v %s", z, err, out)
		}
	}
	c := startCaddy(t, ns, caddyOpts{extra: "statistics_channel " + ns.StatsAddr})
	run := func(args ...string) (string, error) {
		cmd := exec.Command(caddyBin, append([]string{"zoneapi-adopt", "--url", c.Base}, args...)...)
		cmd.Env = append(os.Environ(), "ZONEAPI_TOKEN="+testToken)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("--dry-run")
	if err != nil || strings.Count(out, "would adopt") != 4 || !strings.Contains(out, "4 zones not managed") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if r := c.do("GET", "/api/v1/zones", nil); fmt.Sprint(r.body["zones"]) != "[]" {
		t.Fatalf("the dry run adopted: %s", r.raw)
	}
	out, err = run("--grant-update-key")
	if err != nil || !strings.Contains(out, "4 zones: 3 adopted, 0 managed already, 1 of named.conf not adopted, 0 failed") ||
		!strings.Contains(out, `conf.test: not adopted: zone conf.test is configured in named.conf`) ||
		!strings.Contains(out, `add allow-update { key "zoneapi-update"; };`) {
		t.Fatalf("adopt: %v\n%s", err, out)
	}
	if r := c.do("GET", "/api/v1/zones", nil); fmt.Sprint(r.body["zones"]) != "[a.test b.test c.test]" {
		t.Errorf("managed after the command: %s", r.raw)
	}
	expect(t, c.do("POST", "/api/v1/zones/b.test/records", map[string]any{"name": "adopted", "type": "TXT", "value": "yes"}), http.StatusCreated, "a record in an adopted zone")
	if got := answers(query(t, ns, "adopted.b.test", dns.TypeTXT), dns.TypeTXT); len(got) != 1 {
		t.Errorf("the record added to the adopted zone is not served: %v", got)
	}
	out, err = run()
	if err != nil || !strings.Contains(out, "1 zones: 0 adopted, 0 managed already, 1 of named.conf not adopted, 0 failed") {
		t.Errorf("second run: %v\n%s", err, out)
	}
}
