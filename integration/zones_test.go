package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestZoneLifecycle creates a zone and drives every zone route, checking
// each against what named itself says.
func TestZoneLifecycle(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "life.test"

	r := c.do("POST", "/api/v1/zones", zoneBody(zone))
	expect(t, r, http.StatusCreated, "create")
	if loc := r.header.Get("Location"); loc != "/api/v1/zones/"+zone {
		t.Errorf("Location = %q", loc)
	}
	if r.body["success"] != true {
		t.Errorf("create body: %s", r.raw)
	}

	// named answers the records that were sent.
	soa := query(t, ns, zone, dns.TypeSOA)
	if soa.Rcode != dns.RcodeSuccess || len(soa.Answer) != 1 || soa.Answer[0].(*dns.SOA).Serial != 2026112501 {
		t.Fatalf("SOA answer: %v", soa)
	}
	checks := []struct {
		name  string
		qtype uint16
		want  []string
	}{
		{"www." + zone, dns.TypeA, []string{"192.0.2.80"}},
		{"ns1." + zone, dns.TypeA, []string{"192.0.2.53"}},
		{"ns2." + zone, dns.TypeAAAA, []string{"2001:db8::53"}},
		{zone, dns.TypeMX, []string{"10 mail." + zone + "."}},
		{zone, dns.TypeTXT, []string{`"v=spf1 mx -all"`}},
		{zone, dns.TypeNS, []string{"ns1." + zone + ".", "ns2." + zone + "."}},
	}
	for _, ck := range checks {
		got := answers(query(t, ns, ck.name, ck.qtype), ck.qtype)
		slices.Sort(got)
		if !slices.Equal(got, ck.want) {
			t.Errorf("%s %s = %q, want %q", ck.name, dns.TypeToString[ck.qtype], got, ck.want)
		}
	}
	if ttl := query(t, ns, "www."+zone, dns.TypeA).Answer[0].Header().Ttl; ttl != 300 {
		t.Errorf("www TTL = %d, want 300", ttl)
	}

	// list
	r = c.do("GET", "/api/v1/zones", nil)
	expect(t, r, 200, "list")
	if zs, _ := r.body["zones"].([]any); len(zs) != 1 || zs[0] != zone || r.body["count"] != float64(1) {
		t.Errorf("list body: %s", r.raw)
	}

	// get
	r = c.do("GET", "/api/v1/zones/"+zone, nil)
	expect(t, r, 200, "get")
	if r.str("name") != zone || r.str("zoneType") != "primary" || r.body["serial"] != float64(2026112501) ||
		r.str("state") != "active" || r.body["dynamic"] != true || r.body["loaded"] != true {
		t.Errorf("get body: %s", r.raw)
	}

	// status: BIND's text and the parsed state
	r = c.do("GET", "/api/v1/zones/"+zone+"/status", nil)
	expect(t, r, 200, "status")
	if !strings.Contains(r.str("details"), "serial: 2026112501") {
		t.Errorf("status details: %s", r.raw)
	}

	// reload of an unfrozen dynamic zone: BIND refuses; 409 with advice.
	r = c.do("POST", "/api/v1/zones/"+zone+"/reload", nil)
	expectError(t, r, http.StatusConflict, "Conflict", "freeze it before reloading")

	// freeze → BIND says frozen
	r = c.do("POST", "/api/v1/zones/"+zone+"/freeze", nil)
	expect(t, r, 200, "freeze")
	if out, _ := ns.RNDC("zonestatus", zone); !strings.Contains(out, "frozen: yes") {
		t.Errorf("after freeze, rndc zonestatus says:\n%s", out)
	}
	if r = c.do("GET", "/api/v1/zones/"+zone, nil); r.str("state") != "frozen" {
		t.Errorf("state after freeze: %s", r.raw)
	}
	r = c.do("POST", "/api/v1/zones/"+zone+"/freeze", nil)
	expectError(t, r, http.StatusConflict, "Conflict", "already frozen")

	// reload while frozen works
	r = c.do("POST", "/api/v1/zones/"+zone+"/reload", nil)
	expect(t, r, 200, "reload")
	if !strings.Contains(r.str("details"), "reload") {
		t.Errorf("reload details: %s", r.raw)
	}

	// thaw → BIND says not frozen
	r = c.do("POST", "/api/v1/zones/"+zone+"/thaw", nil)
	expect(t, r, 200, "thaw")
	if out, _ := ns.RNDC("zonestatus", zone); !strings.Contains(out, "frozen: no") {
		t.Errorf("after thaw, rndc zonestatus says:\n%s", out)
	}

	// notify
	r = c.do("POST", "/api/v1/zones/"+zone+"/notify", nil)
	expect(t, r, 200, "notify")
	if r.str("details") != "zone notify queued" {
		t.Errorf("notify details: %s", r.raw)
	}

	// delete: named forgets the zone, the files are gone, the list is empty.
	r = c.do("DELETE", "/api/v1/zones/"+zone, nil)
	expect(t, r, 200, "delete")
	if out, err := ns.RNDC("zonestatus", zone); err == nil || !strings.Contains(out+err.Error(), "not found") {
		t.Errorf("after delete, rndc zonestatus: %q %v", out, err)
	}
	if m := query(t, ns, zone, dns.TypeSOA); m.Rcode == dns.RcodeSuccess && len(m.Answer) > 0 {
		t.Errorf("named still answers SOA after delete: %v", m)
	}
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("zone dir after delete: %v", names)
	}
	r = c.do("GET", "/api/v1/zones", nil)
	if zs, _ := r.body["zones"].([]any); len(zs) != 0 {
		t.Errorf("list after delete: %s", r.raw)
	}
	// and it can be created again
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "re-create")
}

// TestCreateExistingZoneTouchesNothing makes a journal with a signed
// dynamic update, then creates the zone again: 409, and the zone file and
// journal keep their bytes.
func TestCreateExistingZoneTouchesNothing(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "dup.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")

	// A dynamic update through TSIG creates the journal.
	m := new(dns.Msg)
	m.SetUpdate(zone + ".")
	rr, _ := dns.NewRR("added." + zone + ". 60 IN A 192.0.2.99")
	m.Insert([]dns.RR{rr})
	m.SetTsig(dns.Fqdn(ns.TSIGKeyName), dns.HmacSHA256, 300, time.Now().Unix())
	cl := &dns.Client{Net: "tcp", TsigSecret: map[string]string{dns.Fqdn(ns.TSIGKeyName): ns.TSIGSecret}}
	in, _, err := cl.Exchange(m, ns.DNSAddr)
	if err != nil || in.Rcode != dns.RcodeSuccess {
		t.Fatalf("dynamic update: %v %v", in, err)
	}
	zoneFile := filepath.Join(ns.ZoneDir, zone+".zone")
	journal := zoneFile + ".jnl"
	before, _ := os.ReadFile(zoneFile)
	jBefore, err := os.ReadFile(journal)
	if err != nil {
		t.Fatalf("no journal after update: %v", err)
	}

	body := zoneBody(zone)
	body["zoneConfig"].(map[string]any)["ttl"] = 60 // different content
	r := c.do("POST", "/api/v1/zones", body)
	expectError(t, r, http.StatusConflict, "Conflict", "already exists")

	after, _ := os.ReadFile(zoneFile)
	jAfter, _ := os.ReadFile(journal)
	if !bytes.Equal(before, after) || !bytes.Equal(jBefore, jAfter) {
		t.Errorf("zone file or journal changed by a refused create")
	}
	if got := answers(query(t, ns, "added."+zone, dns.TypeA), dns.TypeA); len(got) != 1 {
		t.Errorf("the updated record is gone: %v", got)
	}
}

// TestCreateFailureLeavesNoFile: named refuses the zone (an undefined
// dnssec-policy); the API reports BIND's error and nothing stays behind.
func TestCreateFailureLeavesNoFile(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	body := zoneBody("policy.test")
	body["zoneConfig"].(map[string]any)["dnssecPolicy"] = "no-such-policy"
	r := c.do("POST", "/api/v1/zones", body)
	expectError(t, r, http.StatusInternalServerError, "Bad Gateway", "rndc addzone failed")
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files left after a failed create: %v", names)
	}
	r = c.do("GET", "/api/v1/zones", nil)
	if r.body["count"] != float64(0) {
		t.Errorf("list after failed create: %s", r.raw)
	}
	expect(t, c.do("GET", "/api/v1/zones/policy.test", nil), http.StatusNotFound, "get after failed create")
}

// TestUnknownZone404 checks every {name} route on a zone nobody created.
func TestUnknownZone404(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	routes := []struct{ method, path string }{
		{"GET", ""}, {"DELETE", ""}, {"GET", "/status"},
		{"POST", "/reload"}, {"POST", "/freeze"}, {"POST", "/thaw"}, {"POST", "/notify"},
	}
	for _, rt := range routes {
		r := c.do(rt.method, "/api/v1/zones/nowhere.test"+rt.path, nil)
		expectError(t, r, http.StatusNotFound, "Not Found", "nowhere.test")
	}
}

// TestBadZoneNames: invalid names are refused with 400 and nothing is
// written, in a body or in a path.
func TestBadZoneNames(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	bad := []string{"../etc", "a b", "-x", strings.Repeat("a", 300), "", "a..b", "x\\y", "\"; }; zone evil {", "a\nb"}
	for _, name := range bad {
		body := zoneBody("ok.test")
		body["zoneName"] = name
		r := c.do("POST", "/api/v1/zones", body)
		expectError(t, r, http.StatusBadRequest, "Bad Request", "zoneName")
	}
	for _, name := range []string{"..%2Fetc", "a%20b", "-x", strings.Repeat("a", 300)} {
		r := c.do("GET", "/api/v1/zones/"+name, nil)
		expectError(t, r, http.StatusBadRequest, "Bad Request", "invalid zone name")
	}
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files written for bad names: %v", names)
	}
}

// TestBadBodies: malformed JSON, unknown fields, wrong types and oversized
// bodies are refused with a JSON error and change nothing.
func TestBadBodies(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	cases := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"malformed", `{"zoneName": "a.test",`, 400, "malformed JSON"},
		{"not json", `zoneName=a.test`, 400, "malformed JSON"},
		{"unknown field", `{"zoneName":"a.test","zoneType":"primary","zoneKonfig":{}}`, 400, `/zoneKonfig: unknown field`},
		{"nested unknown field", `{"zoneName":"a.test","zoneType":"primary","zoneConfig":{"ttl":60,"tll":1}}`, 400, `/zoneConfig/tll: unknown field`},
		{"wrong type", `{"zoneName":"a.test","zoneType":"primary","zoneConfig":{"ttl":"3600"}}`, 400, "/zoneConfig/ttl: got string, want integer"},
		{"negative", `{"zoneName":"a.test","zoneType":"primary","zoneConfig":{"ttl":-1}}`, 400, "/zoneConfig/ttl: minimum"},
		{"every violation listed", `{"zoneName":7,"zoneType":"primary","zoneConfig":{"ttl":"x","soa":{"primaryNs":1}}}`, 400, "/zoneName: got number, want string"},
		{"two values", `{"zoneName":"a.test"} {}`, 400, "single JSON object"},
		{"empty", ``, 400, "empty"},
		{"too large", `{"zoneName":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "exceeds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("POST", "/api/v1/zones", tc.body)
			text := http.StatusText(tc.status)
			if tc.status == http.StatusRequestEntityTooLarge {
				text = "Payload Too Large" // DESIGN.md's name, not Go's
			}
			expectError(t, r, tc.status, text, tc.msg)
		})
	}
	// Schema violations come as a list of JSON pointers, all of them.
	r := c.do("POST", "/api/v1/zones", `{"zoneName":7,"zoneType":"primary","zoneConfig":{"ttl":"x","soa":{"primaryNs":1}}}`)
	vs, _ := r.body["violations"].([]any)
	var ptrs []string
	for _, v := range vs {
		ptrs = append(ptrs, v.(map[string]any)["pointer"].(string))
	}
	for _, want := range []string{"/zoneName", "/zoneConfig/ttl", "/zoneConfig/soa/primaryNs", "/zoneConfig/soa/adminEmail"} {
		if !slices.Contains(ptrs, want) {
			t.Errorf("violations %v lack %s", ptrs, want)
		}
	}
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files written for bad bodies: %v", names)
	}
}

// TestAuth checks the three 401 messages, that health and ready need no
// token, that the Bearer scheme is matched in any case, and that the
// token never reaches the log.
func TestAuth(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	cases := []struct{ header, msg string }{
		{"", "Missing Authorization header"},
		{"Basic dXNlcjpwYXNz", "Invalid Authorization header format. Expected: Bearer <token>"},
		{"Bearer" + testToken, "Invalid Authorization header format. Expected: Bearer <token>"},
		{"Token " + testToken, "Invalid Authorization header format. Expected: Bearer <token>"},
		{"Bearer ", "Empty token"},
		{"Bearer    ", "Empty token"},
	}
	for _, path := range []string{"/api/v1/zones", "/api/v1/server/status", "/api/v1/zones/x.test", "/api/v1/nothing"} {
		for _, tc := range cases {
			r := c.doAuth("GET", path, nil, tc.header)
			expect(t, r, http.StatusUnauthorized, fmt.Sprintf("%s with %q", path, tc.header))
			if r.str("error") != "Unauthorized" || r.str("message") != tc.msg {
				t.Errorf("%s with %q: body %s, want message %q", path, tc.header, r.raw, tc.msg)
			}
		}
	}
	expect(t, c.doAuth("GET", "/api/v1/health", nil, ""), 200, "health without token")
	expect(t, c.doAuth("GET", "/api/v1/ready", nil, ""), 200, "ready without token")
	// The scheme is case-insensitive (RFC 9110 §11.1).
	for _, scheme := range []string{"bearer", "BEARER"} {
		expect(t, c.doAuth("GET", "/api/v1/zones", nil, scheme+" "+testToken), 200, scheme+" scheme")
	}
	r := c.do("GET", "/api/v1/server/status", nil)
	expect(t, r, 200, "server status with token")
	if !strings.Contains(r.str("status"), "server is up and running") || r.body["serverUp"] != true {
		t.Errorf("server status body: %s", r.raw)
	}
	if strings.Contains(c.Log(), testToken) {
		t.Errorf("the bearer token appears in caddy's log")
	}
	for _, secret := range []string{ns.RNDCSecret, ns.TSIGSecret} {
		if strings.Contains(c.Log(), secret) {
			t.Errorf("a key secret appears in caddy's log")
		}
	}
}

// TestDisableAuth: DISABLE_AUTH=true admits a request without a header.
func TestDisableAuth(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{env: []string{"DISABLE_AUTH=true"}})
	expect(t, c.doAuth("GET", "/api/v1/zones", nil, ""), 200, "list without token")
	if !strings.Contains(c.Log(), "authentication is disabled") {
		t.Errorf("no warning about disabled authentication in the log")
	}
	// The directive option does the same.
	c2 := startCaddy(t, ns, caddyOpts{extra: "disable_auth"})
	expect(t, c2.doAuth("GET", "/api/v1/zones", nil, ""), 200, "list without token (disable_auth)")
}

// TestReady: 200 when all is well; 503 naming both checks when the zone
// directory is gone and named is stopped; 200 again after both return.
func TestReady(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	r := c.doAuth("GET", "/api/v1/ready", nil, "")
	expect(t, r, 200, "ready")
	if r.body["ready"] != true {
		t.Errorf("ready body: %s", r.raw)
	}

	moved := ns.ZoneDir + ".moved"
	if err := os.Rename(ns.ZoneDir, moved); err != nil {
		t.Fatal(err)
	}
	ns.Stop()
	r = c.doAuth("GET", "/api/v1/ready", nil, "")
	expect(t, r, http.StatusServiceUnavailable, "ready with named stopped and no zone dir")
	checks, _ := r.body["checks"].([]any)
	if r.body["ready"] != false || len(checks) != 2 ||
		checks[0] != "zone_dir_accessible: "+ns.ZoneDir ||
		!strings.HasPrefix(checks[1].(string), "rndc_error: ") {
		t.Errorf("not-ready body: %s", r.raw)
	}

	if err := os.Rename(moved, ns.ZoneDir); err != nil {
		t.Fatal(err)
	}
	ns.Restart(t)
	r = c.doAuth("GET", "/api/v1/ready", nil, "")
	expect(t, r, 200, "ready after recovery")
}

// TestUnknownRoutes: unknown paths and wrong methods get JSON errors.
func TestUnknownRoutes(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	expectError(t, c.do("GET", "/api/v1/nothing", nil), 404, "Not Found", "no such endpoint")
	r := c.do("PUT", "/api/v1/zones", nil)
	expectError(t, r, 405, "Method Not Allowed", "not allowed")
	if !strings.Contains(r.header.Get("Allow"), "POST") {
		t.Errorf("Allow = %q", r.header.Get("Allow"))
	}
}

// TestCreateZoneNamedAlreadyServes: a zone from named.conf (not created
// through the API) is refused with 409 and its file is left alone, whether
// it lives at the API's file name or elsewhere.
func TestCreateZoneNamedAlreadyServes(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "conf.test.db")
	if err := os.WriteFile(own, []byte(testbind.MinimalZone("conf.test", 7)), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := testbind.Start(t, &testbind.Options{ExtraConfig: fmt.Sprintf("zone \"conf.test\" { type primary; file %q; };\n", own)})
	c := startCaddy(t, ns, caddyOpts{})
	before, _ := os.ReadFile(own)

	r := c.do("POST", "/api/v1/zones", zoneBody("conf.test"))
	expectError(t, r, http.StatusConflict, "Conflict", "already exists in named")
	after, _ := os.ReadFile(own)
	if !bytes.Equal(before, after) {
		t.Errorf("named's own zone file changed")
	}
	if names := dirNames(t, ns.ZoneDir); len(names) != 0 {
		t.Errorf("files left in the zone dir: %v", names)
	}
	if soa := query(t, ns, "conf.test", dns.TypeSOA); len(soa.Answer) != 1 || soa.Answer[0].(*dns.SOA).Serial != 7 {
		t.Errorf("named's zone changed: %v", soa)
	}
	// It is not managed, but GET still describes it.
	r = c.do("GET", "/api/v1/zones/conf.test", nil)
	expect(t, r, 200, "get named's zone")
	if r.body["managed"] != false || r.body["serial"] != float64(7) {
		t.Errorf("get body: %s", r.raw)
	}
}

// TestAllowTransferAdmitsModuleKey: a zone that restricts transfers still
// lets the module read it (AXFR signed with its key), and named still
// refuses an unsigned transfer from elsewhere.
func TestAllowTransferAdmitsModuleKey(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	body := zoneBody("xfr.test")
	body["zoneConfig"].(map[string]any)["allowTransfer"] = []string{"192.0.2.7"}
	expect(t, c.do("POST", "/api/v1/zones", body), http.StatusCreated, "create")
	r := c.do("GET", "/api/v1/zones/xfr.test/records?type=A", nil)
	expect(t, r, 200, "records read by AXFR")
	if !strings.Contains(string(r.raw), "www.xfr.test.") {
		t.Errorf("records: %s", r.raw)
	}
	m := new(dns.Msg)
	m.SetAxfr("xfr.test.")
	tr := &dns.Transfer{}
	env, err := tr.In(m, ns.DNSAddr)
	refused := err != nil
	if err == nil {
		for e := range env {
			if e.Error != nil {
				refused = true
			}
		}
	}
	if !refused {
		t.Error("an unsigned AXFR from 127.0.0.1 was allowed")
	}
}

// TestDeleteUnmanagedZoneKeepsFiles: a zone the API does not manage is
// deleted only with ?confirm=unmanaged (409 and nothing changed without
// it), from named only: its file, though it sits in the zone directory
// under the API's naming, is left alone. A zone of named.conf is never
// deleted (409 even when confirmed): delzone cannot make it stay deleted.
func TestDeleteUnmanagedZoneKeepsFiles(t *testing.T) {
	// named.conf names the file relative to named's directory; it is
	// written, and the zone loaded, once named runs.
	ns := testbind.Start(t, &testbind.Options{ExtraConfig: "zone \"own.test\" { type primary; file \"zones/own.test.zone\"; };\n"})
	file := filepath.Join(ns.ZoneDir, "own.test.zone")
	if err := os.WriteFile(file, []byte(testbind.MinimalZone("own.test", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("reload", "own.test"); err != nil {
		t.Fatalf("loading named's zone: %v %s", err, out)
	}
	added := filepath.Join(ns.ZoneDir, "added.test.zone")
	if err := os.WriteFile(added, []byte(testbind.MinimalZone("added.test", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("addzone", "added.test", `{ type primary; file "zones/added.test.zone"; };`); err != nil {
		t.Fatalf("rndc addzone: %v %s", err, out)
	}
	c := startCaddy(t, ns, caddyOpts{})
	for _, path := range []string{"/api/v1/zones/own.test", "/api/v1/zones/own.test?confirm=unmanaged"} {
		r := c.do("DELETE", path, nil)
		expectError(t, r, http.StatusConflict, "Conflict", "configured in named.conf")
	}
	if soa := query(t, ns, "own.test", dns.TypeSOA); len(soa.Answer) != 1 {
		t.Errorf("named's own zone is gone after a refused delete: %v", soa)
	}
	r := c.do("DELETE", "/api/v1/zones/added.test", nil)
	expectError(t, r, http.StatusConflict, "Conflict", "confirm=unmanaged")
	if soa := query(t, ns, "added.test", dns.TypeSOA); len(soa.Answer) != 1 {
		t.Errorf("the zone is gone after an unconfirmed delete: %v", soa)
	}
	r = c.do("DELETE", "/api/v1/zones/added.test?confirm=unmanaged", nil)
	expect(t, r, 200, "confirmed delete")
	if _, err := os.Stat(added); err != nil {
		t.Errorf("the file of a zone not created through the API was removed: %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the file of named's own zone was removed: %v", err)
	}
	expect(t, c.do("GET", "/api/v1/zones/added.test", nil), 404, "deleted zone")
}
