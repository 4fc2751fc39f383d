package module

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
)

// scopedHandler is fakeNamedHandler with the static mode and one token
// per entry of scopes (name → scope text, "" for everything); it returns
// the tokens by name.
func scopedHandler(t testing.TB, answers fakeNamedAnswers, scopes map[string]string) (*Handler, *rndcCommands, map[string]string) {
	t.Helper()
	h, srv := fakeNamedHandler(t, answers)
	st := &auth.Static{}
	toks := map[string]string{}
	for name, text := range scopes {
		tok, hash, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := auth.ParseScope(text)
		if err != nil {
			t.Fatal(err)
		}
		st.Tokens = append(st.Tokens, auth.StaticToken{Name: name, Hash: hash, Scope: sc})
		toks[name] = tok
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := st.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	h.authDisabled = false
	h.acc = &auth.RequestGuard{Guard: &auth.Guard{Mode: st, ModeName: "static", Log: h.authLog}, Refused: apimetrics.CountAuthFailure, WriteError: writeError}
	return h, &rndcCommands{srv.Commands}, toks
}

// rndcCommands reads the commands the fake named received.
type rndcCommands struct{ list func() []string }

func (c *rndcCommands) count() int { return len(c.list()) }

// serveAs serves one request with the bearer token tok.
func serveAs(h *Handler, tok, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Authorization", "Bearer "+tok)
	_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	return w
}

// TestServerRoutesNeedAllZones: the server-wide routes (status,
// reconcile) refuse a token limited to some zones with 403 before
// named hears anything, as the catalog routes do; a token whose zones
// are * is not limited to some zones.
func TestServerRoutesNeedAllZones(t *testing.T) {
	answers := fakeNamedAnswers{"status": {Text: testdata(t, "status.txt")}}
	for _, tc := range []struct {
		token, method, path string
		status              int
	}{
		{"customer", "GET", "/api/v1/server/status", 403},
		{"customer", "POST", "/api/v1/server/reconcile", 403},
		{"customerServer", "GET", "/api/v1/server/status", 403},
		{"customerServer", "POST", "/api/v1/server/reconcile", 403},
		{"everyZone", "GET", "/api/v1/server/status", 200},
		{"everyZone", "POST", "/api/v1/server/reconcile", 200},
		{"admin", "GET", "/api/v1/server/status", 200},
	} {
		h, cmds, toks := scopedHandler(t, answers, map[string]string{
			"customer":       "zones=*.customer.test",
			"customerServer": "actions=server,read zones=*.customer.test",
			"everyZone":      "actions=server zones=*",
			"admin":          "",
		})
		w := serveAs(h, toks[tc.token], tc.method, tc.path, "")
		if w.Code != tc.status {
			t.Errorf("%s: %s %s: %d %s, want %d", tc.token, tc.method, tc.path, w.Code, w.Body, tc.status)
		}
		if tc.status == 403 && cmds.count() != 0 {
			t.Errorf("%s: %s %s: named received %v", tc.token, tc.method, tc.path, cmds.list())
		}
	}
}

// TestRecordScopeRefusedBeforeAnyWork: the first request after start,
// from a token limited to _acme-challenge TXT records, asking to change
// an A record, is refused 403 before anything reaches named or the disk:
// the start-up reconcile (which would ask named about the stray file in
// the zone directory and move it aside) has not run.
func TestRecordScopeRefusedBeforeAnyWork(t *testing.T) {
	h, cmds, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
		"acme": "actions=records,read zones=acme.test names=_acme-challenge.* types=TXT",
	})
	stray := filepath.Join(h.conf.ZoneDir, "stray.test.zone")
	if err := os.WriteFile(stray, []byte("; a file no zone uses\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, body string }{
		{"POST", `{"name":"www","type":"A","value":"192.0.2.1"}`},
		{"DELETE", `{"name":"www","type":"A"}`},
		{"PATCH", `{"changes":[{"op":"add","name":"_acme-challenge","type":"TXT","value":"x"},{"op":"add","name":"www","type":"A","value":"192.0.2.1"}]}`},
		{"GET export", ""},
	} {
		path := "/api/v1/zones/acme.test/records"
		if tc.method == "GET export" {
			tc.method, path = "GET", "/api/v1/zones/acme.test/export"
		}
		w := serveAs(h, toks["acme"], tc.method, path, tc.body)
		if w.Code != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", tc.method, w.Code, w.Body)
		}
	}
	if n := cmds.count(); n != 0 {
		t.Errorf("named received %v before the scope refused the requests", cmds.list())
	}
	if _, err := os.Stat(stray); err != nil {
		t.Errorf("the zone directory was touched: %v", err)
	}
}

const acmeZone = `$TTL 300
@    IN SOA ns1.acme.test. admin.acme.test. 1 3600 600 86400 300
@    IN NS  ns1
ns1  IN A   192.0.2.1
_acme-challenge IN TXT "token-1"
_acme-challenge.www IN TXT "token-2"
db   IN A   192.0.2.20
secret IN TXT "not yours"
www  IN A   192.0.2.10
`

// TestRecordPagesOnlyInScope: a token limited to _acme-challenge TXT,
// paging through the zone's records one RRset at a time, sees exactly
// its two RRsets, and no cursor it is given names anything else (the
// cursors are opaque: they do not decode to a name of the zone). Its
// GET of the zone leaves out the zone's configuration and file.
func TestRecordPagesOnlyInScope(t *testing.T) {
	answers := fakeNamedAnswers{
		"zonestatus acme.test": {Text: strings.ReplaceAll(testdata(t, "zonestatus_dynamic.txt"), "dyn.test", "acme.test")},
		"showzone acme.test":   {Text: strings.ReplaceAll(testdata(t, "showzone_primary.txt"), "p.test", "acme.test")},
	}
	h, _, toks := scopedHandler(t, answers, map[string]string{
		"acme":  "actions=records,read zones=acme.test names=_acme-challenge.* types=TXT",
		"admin": "",
	})
	h.conf.DNSServer = dnstest.NewServer(t, map[string]string{"acme.test": acmeZone}).Addr
	var seen []string
	cursor := ""
	for page := 0; page < 20; page++ {
		path := "/api/v1/zones/acme.test/records?limit=1"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		w := serveAs(h, toks["acme"], "GET", path, "")
		if w.Code != http.StatusOK {
			t.Fatalf("page %d: %d %s", page, w.Code, w.Body)
		}
		var body struct {
			RRsets []struct {
				Name, Type string
			} `json:"rrsets"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if len(body.RRsets) == 0 && body.NextCursor != "" {
			t.Errorf("page %d: empty, with a next cursor", page)
		}
		for _, s := range body.RRsets {
			seen = append(seen, s.Name+" "+s.Type)
		}
		if body.NextCursor == "" {
			break
		}
		if raw, err := base64.RawURLEncoding.DecodeString(body.NextCursor); err == nil && strings.Contains(strings.ToLower(string(raw)), "acme") {
			t.Errorf("page %d: the cursor %q decodes to %q", page, body.NextCursor, raw)
		}
		cursor = body.NextCursor
	}
	want := []string{"_acme-challenge.acme.test. TXT", "_acme-challenge.www.acme.test. TXT"}
	if !slices.Equal(seen, want) {
		t.Errorf("pages showed %q, want %q", seen, want)
	}
	// A forged cursor is refused, not decoded.
	forged := base64.RawURLEncoding.EncodeToString([]byte("db.acme.test.\x00A"))
	if w := serveAs(h, toks["acme"], "GET", "/api/v1/zones/acme.test/records?cursor="+forged, ""); w.Code != http.StatusBadRequest {
		t.Errorf("a forged cursor: %d %s, want 400", w.Code, w.Body)
	}
	// The zone's configuration and file are not records the token may
	// read; the admin sees them.
	if w := serveAs(h, toks["acme"], "GET", "/api/v1/zones/acme.test", ""); w.Code != 200 || strings.Contains(w.Body.String(), `"config"`) || strings.Contains(w.Body.String(), "filePath") {
		t.Errorf("GET of the zone by the acme token: %d %s, want no config and no filePath", w.Code, w.Body)
	}
	if w := serveAs(h, toks["admin"], "GET", "/api/v1/zones/acme.test", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"config"`) {
		t.Errorf("GET of the zone by the admin: %d %s, want the config", w.Code, w.Body)
	}
}

// TestRecordLimitedTokenCannotReplaceZone: a token whose scope limits
// record names or types cannot get round that with the zones action:
// creating the zone (with any records), deleting it or changing its
// configuration (allow-update any) is refused 403 before named hears
// anything; zone commands that leave records and policy alone (notify)
// are not refused for that. Its zone status shows no file or BIND text.
func TestRecordLimitedTokenCannotReplaceZone(t *testing.T) {
	answers := fakeNamedAnswers{
		"zonestatus acme.test": {Text: strings.ReplaceAll(testdata(t, "zonestatus_dynamic.txt"), "dyn.test", "acme.test")},
		"notify acme.test":     {Text: "zone notify queued"},
	}
	h, cmds, toks := scopedHandler(t, answers, map[string]string{
		"acme": "actions=zones,records,read zones=acme.test names=_acme-challenge.* types=TXT",
	})
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/api/v1/zones", zoneJSON("acme.test")},
		{"DELETE", "/api/v1/zones/acme.test", ""},
		{"PATCH", "/api/v1/zones/acme.test", `{"allowUpdate":["any"]}`},
	} {
		if w := serveAs(h, toks["acme"], tc.method, tc.path, tc.body); w.Code != http.StatusForbidden {
			t.Errorf("%s %s: %d %s, want 403", tc.method, tc.path, w.Code, w.Body)
		}
	}
	if n := cmds.count(); n != 0 {
		t.Errorf("named received %v", cmds.list())
	}
	if w := serveAs(h, toks["acme"], "POST", "/api/v1/zones/acme.test/notify", ""); w.Code == http.StatusForbidden {
		t.Errorf("notify: %d %s", w.Code, w.Body)
	}
	if w := serveAs(h, toks["acme"], "GET", "/api/v1/zones/acme.test/status", ""); w.Code != 200 || strings.Contains(w.Body.String(), "filePath") || strings.Contains(w.Body.String(), "files:") {
		t.Errorf("status: %d %s, want no file and no BIND text", w.Code, w.Body)
	}
}
