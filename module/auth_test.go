package module

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/rest"
)

// TestIdentityPlaceholder: the authenticated identity, never the token,
// is in {http.auth.user.id} for access logs and later handlers.
func TestIdentityPlaceholder(t *testing.T) {
	h := &Handler{}
	h.setLoggers(zap.NewNop())
	h.router = h.newRouter()
	repl := caddy.NewReplacer()
	req := httptest.NewRequest("GET", "/api/v1/zones/bad..name", nil)
	req = req.WithContext(context.WithValue(req.Context(), caddy.ReplacerCtxKey, repl))
	req.Header.Set("Authorization", "Bearer secret-token")
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, req, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	got, _ := repl.GetString("http.auth.user.id")
	if want := "basic:" + auth.Fingerprint("secret-token"); got != want {
		t.Errorf("http.auth.user.id = %q, want %q", got, want)
	}
}

func TestRouteAction(t *testing.T) {
	h := &Handler{}
	for _, rt := range h.buildRoutes() {
		a := rest.RouteAction(rt.Method, rt.Template)
		serverWide := strings.HasPrefix(rt.Template, "/api/v1/server/") || strings.HasPrefix(rt.Template, "/api/v1/catalog") || strings.HasPrefix(rt.Template, "/api/v1/events/webhooks")
		switch {
		case rt.Public:
		case serverWide && a != auth.ActionServer,
			!serverWide && rt.Method == "GET" && a != auth.ActionRead && a != "",
			!serverWide && rt.Method != "GET" && rt.Template == "/api/v1/zones/{name}/records" && a != auth.ActionRecords,
			!serverWide && rt.Method != "GET" && rt.Template != "/api/v1/zones/{name}/records" && a != auth.ActionZones:
			t.Errorf("%s %s: action %q", rt.Method, rt.Template, a)
		}
		// Who am I answers any identity (whoami.go).
		if a == "" && !strings.Contains(rt.Template, "docs") && !strings.Contains(rt.Template, "openapi") && !strings.Contains(rt.Template, "asyncapi") && rt.Template != rest.WhoamiTemplate && !rt.Public {
			t.Errorf("%s %s needs no action", rt.Method, rt.Template)
		}
	}
}

// TestSpecNamesAuthErrors: the served specification lists 403 and 429 on
// every endpoint that needs a token, and not on health.
func TestSpecNamesAuthErrors(t *testing.T) {
	d, err := apispec.Service(apispec.DocsAuth)
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range d.T().Paths.Map() {
		for method, op := range item.Operations() {
			secured := op.Security != nil && len(*op.Security) > 0
			for _, code := range []string{"403", "429"} {
				if has := op.Responses.Value(code) != nil; has != secured {
					t.Errorf("%s %s: response %s present %v, secured %v", method, path, code, has, secured)
				}
			}
		}
	}
}
