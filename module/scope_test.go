package module

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
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
	h.guard = &auth.Guard{Mode: st, ModeName: "static", Log: h.authLog}
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
	stray := filepath.Join(h.zoneDir, "stray.test.zone")
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
