package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// tokens mints one static token per name.
func tokens(t testing.TB, names ...string) (tok, hash map[string]string) {
	t.Helper()
	tok, hash = map[string]string{}, map[string]string{}
	for _, n := range names {
		tk, h, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		tok[n], hash[n] = tk, h
	}
	return tok, hash
}

// as sends a request with the token of name.
func (c *caddy) as(tok string, method, path string, body any) *response {
	c.t.Helper()
	return c.doAuth(method, path, body, "Bearer "+tok)
}

// TestAuthStaticScopes runs the static mode through the built Caddy:
// accepted, unknown and expired tokens, and the scope matrix: an
// ACME-style token adds and removes _acme-challenge TXT records and
// nothing else; a read-only token lists and reads but does not write; a
// token for *.customer.test never sees other zones. Every refusal leaves
// the zone's serial and records unchanged. The tokens never reach the
// log, at RUST_LOG=trace; the audit lines name the principal.
func TestAuthStaticScopes(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "acme", "ro", "customer", "old")
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokenFile, []byte("customer "+hash["customer"]+" zones=*.customer.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf(`auth static {
				token admin %s
				token acme %s {
					actions records read
					zones acme.test
					names _acme-challenge.*
					types TXT
				}
				token ro %s {
					actions read
				}
				token old %s {
					expires 2020-01-01T00:00:00Z
				}
				token_file %s
			}`, hash["admin"], hash["acme"], hash["ro"], hash["old"], tokenFile)
	c := startCaddy(t, ns, caddyOpts{extra: extra, env: []string{"RUST_LOG=trace"}})

	// Accepted, unknown, expired, missing.
	for _, z := range []string{"acme.test", "a.customer.test", "b.customer.test", "other.test"} {
		expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", zoneBody(z)), http.StatusCreated, "admin creates "+z)
	}
	expectError(t, c.as("zapi_unknown", "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Invalid token")
	expectError(t, c.as(tok["old"], "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Token expired")
	expectError(t, c.doAuth("GET", "/api/v1/zones", nil, ""), 401, "Unauthorized", "Missing Authorization header")

	rec := "/api/v1/zones/acme.test/records"
	unchanged := func(what, zone string, serial uint32) {
		t.Helper()
		if s := serialOf(t, ns, zone); s != serial {
			t.Errorf("%s: serial of %s moved from %d to %d", what, zone, serial, s)
		}
	}

	// ACME: add and remove its TXT, nothing else.
	acme := func(m, p string, b any) *response { return c.as(tok["acme"], m, p, b) }
	s0 := serialOf(t, ns, "acme.test")
	expect(t, acme("POST", rec, map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "tok1"}), 201, "acme adds its TXT")
	if got := tcpAnswers(t, ns, "_acme-challenge.acme.test", dns.TypeTXT); !slices.Equal(got, []string{`"tok1"`}) {
		t.Errorf("TXT after the ACME add: %q", got)
	}
	expect(t, acme("POST", rec, map[string]any{"name": "_acme-challenge.www.acme.test.", "type": "TXT", "value": "tok2"}), 201, "acme adds a deeper TXT")
	s1 := serialOf(t, ns, "acme.test")
	if s1 == s0 {
		t.Fatal("the ACME adds did not change the serial")
	}
	for _, tc := range []struct {
		what, method, path string
		body               any
		msg                string
	}{
		{"A record", "POST", rec, map[string]any{"name": "_acme-challenge", "type": "A", "value": "192.0.2.1"}, "may not touch A records"},
		{"TXT elsewhere", "POST", rec, map[string]any{"name": "www", "type": "TXT", "value": "x"}, "www.acme.test."},
		{"update elsewhere", "PUT", rec, map[string]any{"name": "www", "type": "A", "currentValue": "192.0.2.80", "newValue": "192.0.2.81"}, "may not touch A"},
		{"remove elsewhere", "DELETE", rec, map[string]any{"name": "@", "type": "TXT"}, "acme.test."},
		{"batch with one bad change", "PATCH", rec, map[string]any{"changes": []map[string]any{
			{"op": "add", "name": "_acme-challenge", "type": "TXT", "value": "ok"},
			{"op": "delete", "name": "www", "type": "A"},
		}}, "changes[1]"},
		{"delete zone", "DELETE", "/api/v1/zones/acme.test", nil, `"zones" action`},
		{"freeze", "POST", "/api/v1/zones/acme.test/freeze", nil, `"zones" action`},
		{"create zone", "POST", "/api/v1/zones", zoneBody("new.test"), `"zones" action`},
		{"other zone", "POST", "/api/v1/zones/other.test/records", map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "x"}, "no access to zone other.test"},
		{"server status", "GET", "/api/v1/server/status", nil, `"server" action`},
		{"export", "GET", "/api/v1/zones/acme.test/export", nil, "may not export"},
	} {
		r := acme(tc.method, tc.path, tc.body)
		expectError(t, r, http.StatusForbidden, "Forbidden", tc.msg)
	}
	unchanged("ACME refusals", "acme.test", s1)
	unchanged("ACME refusals", "other.test", serialOf(t, ns, "other.test"))
	if got := tcpAnswers(t, ns, "www.acme.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.80"}) {
		t.Errorf("www A after the refused batch: %q", got)
	}
	if got := tcpAnswers(t, ns, "_acme-challenge.acme.test", dns.TypeTXT); !slices.Equal(got, []string{`"tok1"`}) {
		t.Errorf("the refused batch's allowed change was applied: %q", got)
	}
	// Its record reads show only its records.
	r := acme("GET", rec, nil)
	expect(t, r, 200, "acme reads records")
	var names []string
	for _, s := range r.body["rrsets"].([]any) {
		m := s.(map[string]any)
		names = append(names, m["name"].(string)+" "+m["type"].(string))
	}
	if !slices.Equal(names, []string{"_acme-challenge.acme.test. TXT", "_acme-challenge.www.acme.test. TXT"}) {
		t.Errorf("acme's record list: %q", names)
	}
	expect(t, acme("DELETE", rec, map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "tok1"}), 200, "acme removes its TXT")
	if got := tcpAnswers(t, ns, "_acme-challenge.acme.test", dns.TypeTXT); len(got) != 0 {
		t.Errorf("TXT after the ACME remove: %q", got)
	}

	// Read-only: lists and reads, never writes.
	ro := func(m, p string, b any) *response { return c.as(tok["ro"], m, p, b) }
	r = ro("GET", "/api/v1/zones", nil)
	expect(t, r, 200, "ro lists")
	if r.body["count"] != float64(4) {
		t.Errorf("ro sees %v zones, want 4: %s", r.body["count"], r.raw)
	}
	expect(t, ro("GET", "/api/v1/zones/other.test", nil), 200, "ro gets a zone")
	expect(t, ro("GET", "/api/v1/zones/other.test/records", nil), 200, "ro reads records")
	s2 := serialOf(t, ns, "other.test")
	expectError(t, ro("POST", "/api/v1/zones/other.test/records", map[string]any{"name": "x", "type": "A", "value": "192.0.2.9"}), 403, "Forbidden", `"records" action`)
	expectError(t, ro("DELETE", "/api/v1/zones/other.test", nil), 403, "Forbidden", `"zones" action`)
	expectError(t, ro("POST", "/api/v1/zones/other.test/reload", nil), 403, "Forbidden", `"zones" action`)
	unchanged("read-only refusals", "other.test", s2)
	if _, err := os.Stat(filepath.Join(ns.ZoneDir, "new.test.zone")); err == nil {
		t.Error("a refused create left a zone file")
	}

	// *.customer.test sees only its zones, page by page.
	cust := func(m, p string, b any) *response { return c.as(tok["customer"], m, p, b) }
	r = cust("GET", "/api/v1/zones?limit=1", nil)
	expect(t, r, 200, "customer lists")
	if z := r.body["zones"].([]any); len(z) != 1 || z[0] != "a.customer.test" || r.body["total"] != float64(2) {
		t.Errorf("customer's first page: %s", r.raw)
	}
	r = cust("GET", "/api/v1/zones?limit=1&cursor="+r.str("nextCursor"), nil)
	if z := r.body["zones"].([]any); len(z) != 1 || z[0] != "b.customer.test" || r.str("nextCursor") != "" {
		t.Errorf("customer's second page: %s", r.raw)
	}
	expectError(t, cust("GET", "/api/v1/zones/other.test", nil), 403, "Forbidden", "no access to zone other.test")
	expect(t, cust("POST", "/api/v1/zones/b.customer.test/records", map[string]any{"name": "x", "type": "A", "value": "192.0.2.9"}), 201, "customer writes its zone")
	expectError(t, cust("POST", "/api/v1/zones", zoneBody("c.other.test")), 403, "Forbidden", "no access to zone c.other.test")
	expect(t, cust("POST", "/api/v1/zones", zoneBody("c.customer.test")), 201, "customer creates in its namespace")

	// The audit trail names principals; no token is ever logged.
	waitLogged(t, c, `"message":"audit"`, `"zone":"c.customer.test"`)
	logs := moduleLogs(t, c)
	var audits []string
	for _, e := range logs {
		if e.s("message") == "audit" {
			audits = append(audits, e.s("principal")+" "+e.s("action")+" "+e.s("zone")+" "+e.s("result"))
		}
	}
	for _, want := range []string{
		"static:admin create acme.test success", "static:acme record_add acme.test success",
		"static:acme record_batch acme.test error", "static:acme delete acme.test error",
		"static:customer create c.customer.test success", "static:customer create c.other.test error",
	} {
		if !slices.Contains(audits, want) {
			t.Errorf("no audit line %q in %q", want, audits)
		}
	}
	text := c.Log()
	for name, v := range tok {
		if strings.Contains(text, v) {
			t.Errorf("the %s token appears in the log at RUST_LOG=trace", name)
		}
	}
}

// TestAuthRateLimit: an identity gets its burst, then 429 with
// Retry-After and the JSON body; another identity is unaffected; health
// and ready are never limited. Failed authentications lock out the
// client's address.
func TestAuthRateLimit(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "a", "b", "c")
	tokenFile := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokenFile, []byte("b "+hash["b"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf(`auth static {
				token a %s
				token_file %s
			}
			rate_limit 3 1h
			failed_auth_limit 3 1h`, hash["a"], tokenFile)
	c := startCaddy(t, ns, caddyOpts{extra: extra})
	for i := 0; i < 3; i++ {
		expect(t, c.as(tok["a"], "GET", "/api/v1/zones", nil), 200, "within the burst")
	}
	r := c.as(tok["a"], "GET", "/api/v1/zones", nil)
	expectError(t, r, http.StatusTooManyRequests, "Too Many Requests", "rate limit of static:a")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	expect(t, c.as(tok["b"], "GET", "/api/v1/zones", nil), 200, "another identity")

	// A reload re-reads the token file and keeps the buckets.
	expectError(t, c.as(tok["c"], "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Invalid token")
	if err := os.WriteFile(tokenFile, []byte("b "+hash["b"]+"\nc "+hash["c"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reload(t, c, "9s")
	expect(t, c.as(tok["c"], "GET", "/api/v1/zones", nil), 200, "a token added to the file, after the reload")
	expectError(t, c.as(tok["a"], "GET", "/api/v1/zones", nil), http.StatusTooManyRequests, "Too Many Requests", "rate limit of static:a")
	for i := 0; i < 10; i++ {
		expect(t, c.doAuth("GET", "/api/v1/health", nil, ""), 200, "health")
	}
	for i := 0; i < 2; i++ { // with c's 401 above, three failures from this address
		expect(t, c.as("zapi_wrong", "GET", "/api/v1/zones", nil), 401, "wrong token")
	}
	r = c.as(tok["b"], "GET", "/api/v1/zones", nil)
	expectError(t, r, http.StatusTooManyRequests, "Too Many Requests", "failed authentication attempts")
	expect(t, c.doAuth("GET", "/api/v1/ready", nil, ""), 200, "ready")
}

// TestAuthStartupGuard: basic auth on a listener other hosts can reach
// warns; with require_auth the configuration is refused. Checked with
// `caddy validate`, which provisions without listening.
func TestAuthStartupGuard(t *testing.T) {
	ns := startNamed(t)
	for _, tc := range []struct {
		extra string
		ok    bool
		text  string
	}{
		{"", true, "auth mode basic accepts any well-formed bearer token"},
		{"require_auth", false, "require_auth: auth mode basic"},
		{"disable_auth\n\t\t\trequire_auth", false, "require_auth: authentication is disabled"},
	} {
		c := newCaddy(t, ns, caddyOpts{extra: tc.extra})
		cf := strings.Replace(c.Caddyfile("10s"), "http://127.0.0.1:", "http://:", 1)
		cf = strings.Replace(cf, "\tbind 127.0.0.1\n", "", 1)
		if err := os.WriteFile(c.ConfigPath(), []byte(cf), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(caddyBin, "validate", "--config", c.ConfigPath(), "--adapter", "caddyfile")
		cmd.Env = c.Env()
		out, err := cmd.CombinedOutput()
		all := string(out) + c.Log()
		if (err == nil) != tc.ok || !strings.Contains(all, tc.text) {
			t.Errorf("%q: validate err %v, want ok=%v and %q in:\n%s", tc.extra, err, tc.ok, tc.text, all)
		}
	}
	// On loopback, basic mode starts without the warning.
	c := startCaddy(t, ns, caddyOpts{})
	if strings.Contains(c.Log(), "accepts any well-formed bearer token") {
		t.Error("basic mode on loopback warned")
	}
}

// TestAuthJWT: the jwt mode through the built Caddy, with a key set file:
// a valid token works within its scope claim; an unknown signer and an
// expired token get 401; a request outside the scope gets 403 and
// changes nothing. The tokens never reach the log; a sub claim and a
// User-Agent with a line feed, an escape sequence, a right-to-left
// override and thousands of bytes reach it escaped and capped
// (internal/logsafe; before, as sent).
func TestAuthJWT(t *testing.T) {
	ns := startNamed(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	jwksFile := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwksFile, set, 0o600); err != nil {
		t.Fatal(err)
	}
	sign := func(k *ecdsa.PrivateKey, c map[string]any) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: k, KeyID: "k1"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := json.Marshal(c)
		obj, err := s.Sign(p)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := obj.CompactSerialize()
		return tok
	}
	claims := func(sub string, exp time.Duration, scope string) map[string]any {
		c := map[string]any{"iss": "https://idp.zoneapi.test", "aud": "zoneapi", "sub": sub, "exp": time.Now().Add(exp).Unix()}
		if scope != "" {
			c["zoneapi_scope"] = scope
		}
		return c
	}
	extra := fmt.Sprintf(`auth jwt {
				issuer https://idp.zoneapi.test
				jwks_file %s
				audiences zoneapi
				algorithms ES256
				subject admin actions=read,records,zones,server
			}`, jwksFile)
	c := startCaddy(t, ns, caddyOpts{extra: extra, env: []string{"RUST_LOG=trace"}})
	admin := sign(key, claims("admin", time.Hour, ""))
	writer := sign(key, claims("writer", time.Hour, "actions=records,read zones=jwt.test"))
	expired := sign(key, claims("admin", -time.Hour, ""))
	forged := sign(stranger, claims("admin", time.Hour, ""))
	expect(t, c.as(admin, "POST", "/api/v1/zones", zoneBody("jwt.test")), 201, "admin creates")
	expect(t, c.as(admin, "POST", "/api/v1/zones", zoneBody("jwt-other.test")), 201, "admin creates another")
	expect(t, c.as(writer, "POST", "/api/v1/zones/jwt.test/records", map[string]any{"name": "a", "type": "A", "value": "192.0.2.7"}), 201, "writer adds")
	if got := tcpAnswers(t, ns, "a.jwt.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.7"}) {
		t.Errorf("after the add: %q", got)
	}
	expectError(t, c.as(forged, "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Invalid token")
	expectError(t, c.as(expired, "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Token expired")
	s0 := serialOf(t, ns, "jwt-other.test")
	expectError(t, c.as(writer, "POST", "/api/v1/zones/jwt-other.test/records", map[string]any{"name": "a", "type": "A", "value": "192.0.2.7"}), 403, "Forbidden", "no access to zone jwt-other.test")
	expectError(t, c.as(writer, "DELETE", "/api/v1/zones/jwt.test", nil), 403, "Forbidden", `"zones" action`)
	if serialOf(t, ns, "jwt-other.test") != s0 {
		t.Error("a refused change moved the serial")
	}
	r := c.as(writer, "GET", "/api/v1/zones", nil)
	if z := r.body["zones"].([]any); len(z) != 1 || z[0] != "jwt.test" {
		t.Errorf("writer's zone list: %s", r.raw)
	}
	oddSub := "odd\u202egnp.exe\n{\"level\":\"error\"}\x1b[2J" + strings.Repeat("x", 3000)
	odd := sign(key, claims(oddSub, time.Hour, "actions=read zones=jwt.test"))
	oddUA := "agent/1.0 \u202e\u2066\t" + strings.Repeat("A", 3000)
	expect(t, c.send("GET", "/api/v1/zones/jwt.test", nil, map[string]string{"Authorization": "Bearer " + odd, "User-Agent": oddUA}), 200, "the odd subject reads")
	expectError(t, c.send("POST", "/api/v1/zones/jwt.test/freeze", nil, map[string]string{"Authorization": "Bearer " + odd, "User-Agent": oddUA}), 403, "Forbidden", "")
	seen := map[string]bool{}
	for _, e := range moduleLogs(t, c) {
		for k, v := range e {
			s, ok := v.(string)
			if !ok || !strings.Contains(s, "odd") && !strings.Contains(s, "agent/1.0") {
				continue
			}
			seen[k] = true
			if strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) || len(s) > 1100 {
				t.Errorf("%s: %s is not escaped and capped: %.100q (%d bytes)", e.s("message"), k, s, len(s))
			}
		}
	}
	for _, k := range []string{"principal", "user_agent", "reason"} {
		if !seen[k] {
			t.Errorf("no log line names the odd request's %s", k)
		}
	}
	text := c.Log()
	for _, tok := range []string{admin, writer, expired, forged, odd} {
		if strings.Contains(text, tok) || strings.Contains(text, strings.Split(tok, ".")[2]) {
			t.Error("a JWT appears in the log at RUST_LOG=trace")
		}
	}
}

// TestAuthUserIDInAccessLog: the identity (never the token) reaches
// Caddy's {http.auth.user.id}, so its access log names who sent each
// request.
func TestAuthUserIDInAccessLog(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "reader")
	c := newCaddy(t, ns, caddyOpts{extra: "auth static {\n\t\t\t\ttoken reader " + hash["reader"] + " {\n\t\t\t\t\tactions read\n\t\t\t\t}\n\t\t\t}"})
	access := filepath.Join(c.Dir, "access.log")
	cf := strings.Replace(c.Caddyfile("10s"), "\tbind 127.0.0.1\n", "\tbind 127.0.0.1\n\tlog {\n\t\toutput file "+access+"\n\t}\n", 1)
	if err := os.WriteFile(c.ConfigPath(), []byte(cf), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Start()
	t.Cleanup(c.Stop)
	expect(t, c.as(tok["reader"], "GET", "/api/v1/zones", nil), 200, "list")
	expect(t, c.as(tok["reader"], "POST", "/api/v1/zones", zoneBody("denied.test")), 403, "create")
	c.Stop()
	raw, err := os.ReadFile(access)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e struct {
			UserID  string `json:"user_id"`
			Request struct {
				URI string `json:"uri"`
			} `json:"request"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && strings.HasPrefix(e.Request.URI, "/api/v1/zones") {
			ids = append(ids, e.UserID)
		}
	}
	if !slices.Equal(ids, []string{"static:reader", "static:reader"}) {
		t.Errorf("access log user_id values %q, want static:reader twice", ids)
	}
	if strings.Contains(string(raw), tok["reader"]) {
		t.Error("the token appears in the access log")
	}
}

// TestMintTokenCommand: `caddy zoneapi-token` prints a token once and a
// token-file line whose hash is the token's.
func TestMintTokenCommand(t *testing.T) {
	out, err := exec.Command(caddyBin, "zoneapi-token", "--name", "ci", "--scope", "actions=read zones=*.customer.test", "--expires", "1h").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) < 5 || !strings.HasPrefix(lines[1], "zapi_") {
		t.Fatalf("output:\n%s", out)
	}
	toks, err := auth.ParseTokenFile([]byte(lines[4]))
	if err != nil || len(toks) != 1 || toks[0].Name != "ci" || toks[0].Hash != auth.HashToken(lines[1]) ||
		toks[0].Scope.String() != "actions=read zones=*.customer.test" || toks[0].Expires == "" {
		t.Fatalf("token file line %q: %+v %v", lines[4], toks, err)
	}
	if out, err := exec.Command(caddyBin, "zoneapi-token", "--name", "ci", "--scope", "actions=write").CombinedOutput(); err == nil {
		t.Errorf("an unknown action was accepted:\n%s", out)
	}
}
