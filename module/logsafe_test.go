package module

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
)

// identities is an authentication mode for tests: the token is the key
// of the identity it names.
type identities map[string]*auth.Identity

func (m identities) Authenticate(_ context.Context, token string) (*auth.Identity, error) {
	if id, ok := m[token]; ok {
		return id, nil
	}
	return nil, auth.Unauthorized("invalid_token", "Invalid token")
}

// TestClientTextIsSafeInLogs: the User-Agent header and the identity a
// credential names (a JWT's sub claim, which the module cannot refuse)
// reach the log lines escaped and capped: no control character (a line
// feed that forges a line, an escape sequence), no bidirectional
// override or other format character, no value of kilobytes; the
// principal of the audit line, of a 403's line and of "token accepted",
// and Caddy's {http.auth.user.id} (its access log's user_id), are the
// escaped form. Before the fix they were logged as sent.
func TestClientTextIsSafeInLogs(t *testing.T) {
	evil := "sub\u202egnp.exe\n{\"level\":\"error\",\"msg\":\"forged\"}\x1b[2J" + strings.Repeat("\u200b", 3) + strings.Repeat("x", 5000)
	ua := "agent/1.0\r\n\u2066hidden\u2069\x00" + strings.Repeat("A", 5000)
	for _, tc := range []struct {
		name, method, path string
		grant              string
		status             int
	}{
		{"audit line", "POST", "/api/v1/zones/dyn.test/freeze", "", http.StatusOK},
		{"refused", "POST", "/api/v1/zones/dyn.test/freeze", "zones=other.test", http.StatusForbidden},
	} {
		h, _ := fakeNamedHandler(t, fakeNamedAnswers{"freeze dyn.test": {Text: ""}, "zonestatus dyn.test": {Text: testdata(t, "zonestatus_dynamic.txt")}})
		core, logs := observer.New(zapcore.DebugLevel)
		h.setLoggers(zap.New(core))
		id := &auth.Identity{ID: "jwt:" + evil, Mode: "jwt"}
		if tc.grant != "" {
			sc, err := auth.ParseScope(tc.grant)
			if err != nil {
				t.Fatal(err)
			}
			if id.Grant, err = sc.Compile(); err != nil {
				t.Fatal(err)
			}
		}
		h.authDisabled = false
		h.acc = &auth.RequestGuard{Guard: &auth.Guard{Mode: identities{"tok": id}, ModeName: "jwt", Log: h.authLog}, Refused: apimetrics.CountAuthFailure, WriteError: writeError}
		repl := caddy.NewReplacer()
		r := httptest.NewRequest(tc.method, tc.path, nil)
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
		r.Header.Set("Authorization", "Bearer tok")
		r.Header.Set("User-Agent", ua)
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		if w.Code != tc.status {
			t.Fatalf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.status)
		}
		seen := map[string]bool{}
		for _, e := range logs.All() {
			for k, v := range e.ContextMap() {
				s, ok := v.(string)
				if !ok {
					continue
				}
				seen[k] = true
				if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
					t.Errorf("%s: %q: %s holds %q at %d: %.80q", tc.name, e.Message, k, []rune(s[i:])[0], i, s)
				}
				if len(s) > 1100 {
					t.Errorf("%s: %q: %s is %d bytes", tc.name, e.Message, k, len(s))
				}
				if k == "principal" && !strings.HasPrefix(s, `jwt:sub\u202egnp.exe\u000a{"level"`) {
					t.Errorf("%s: %q: principal %.80q, want the escaped subject", tc.name, e.Message, s)
				}
				if k == "user_agent" && !strings.HasPrefix(s, `agent/1.0\u000d\u000a\u2066hidden\u2069\u0000AAA`) {
					t.Errorf("%s: %q: user_agent %.80q, want the escaped header", tc.name, e.Message, s)
				}
			}
		}
		for _, k := range []string{"principal", "user_agent"} {
			if !seen[k] {
				t.Errorf("%s: no log line carries %s", tc.name, k)
			}
		}
		if tc.status == http.StatusForbidden && !seen["reason"] {
			t.Errorf("%s: no log line carries the reason", tc.name)
		}
		if got, _ := repl.GetString("http.auth.user.id"); strings.ContainsAny(got, "\n\x1b\u202e") || len(got) > 300 || !strings.HasPrefix(got, `jwt:sub\u202e`) {
			t.Errorf("%s: {http.auth.user.id} = %.80q", tc.name, got)
		}
	}
}
