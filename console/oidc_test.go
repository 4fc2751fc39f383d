package console

import (
	"encoding/json"
	"encoding/pem"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// discoveryServer serves a discovery document whose issuer is the
// server's URL unless issuer is set, and counts the requests.
func discoveryServer(t *testing.T, issuer string, methods []string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/.well-known/openid-configuration" {
			http.NotFound(w, r)
			return
		}
		iss := issuer
		if iss == "" {
			iss = srv.URL
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": iss, "authorization_endpoint": srv.URL + "/authorize",
			"token_endpoint": srv.URL + "/token?x=1", "jwks_uri": srv.URL + "/jwks", "code_challenge_methods_supported": methods})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// oidcMeta is the page's zoneapi-oidc meta element, decoded.
func oidcMeta(t *testing.T, page string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`<meta name="zoneapi-oidc" content="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no zoneapi-oidc meta element:\n%s", page)
	}
	var c map[string]any
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOIDCPage: with a provider configured, the page names its
// authorization and token endpoints (read from its discovery document
// once, not at every page), the client id and the scopes, and its CSP
// lets the page connect to the token endpoint only (without its query);
// the assets keep the plain CSP. A discovery document naming another
// issuer, or without S256 among its PKCE methods, gives the page the
// reason instead, and no connect-src beyond 'self'.
func TestOIDCPage(t *testing.T) {
	srv, hits := discoveryServer(t, "", []string{"plain", "S256"})
	h := &Handler{OIDC: &OIDC{Issuer: srv.URL, ClientID: "console"}}
	w := serve(t, h, "/console/")
	c := oidcMeta(t, w.Body.String())
	want := map[string]any{"issuer": srv.URL, "clientId": "console", "scopes": []any{"openid"}, "token": "id_token",
		"name": strings.TrimPrefix(srv.URL, "http://"), "authorizationEndpoint": srv.URL + "/authorize", "tokenEndpoint": srv.URL + "/token?x=1"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("meta %v, want %v", c, want)
	}
	if got, want := w.Header().Get("Content-Security-Policy"), strings.Replace(CSP, "connect-src 'self';", "connect-src 'self' "+srv.URL+"/token;", 1); got != want {
		t.Errorf("CSP %q, want %q", got, want)
	}
	serve(t, h, "/console/")
	if hits.Load() != 1 {
		t.Errorf("the discovery document was read %d times for two pages, want once", hits.Load())
	}
	asset := serve(t, h, "/console/assets/"+h.site.hash+"/app.js")
	if asset.Header().Get("Content-Security-Policy") != CSP {
		t.Errorf("an asset's CSP: %q", asset.Header().Get("Content-Security-Policy"))
	}

	for name, srv := range map[string]*httptest.Server{
		"another issuer": func() *httptest.Server { s, _ := discoveryServer(t, "https://elsewhere.example", nil); return s }(),
		"no S256":        func() *httptest.Server { s, _ := discoveryServer(t, "", []string{"plain"}); return s }(),
	} {
		h := &Handler{OIDC: &OIDC{Issuer: srv.URL, ClientID: "console"}}
		w := serve(t, h, "/console/")
		c := oidcMeta(t, w.Body.String())
		if c["error"] == nil || c["tokenEndpoint"] != nil {
			t.Errorf("%s: meta %v, want an error and no endpoints", name, c)
		}
		if got := w.Header().Get("Content-Security-Policy"); got != CSP {
			t.Errorf("%s: CSP %q", name, got)
		}
	}
}

// TestOIDCConfig: the Caddyfile options, and what provisioning refuses.
func TestOIDCConfig(t *testing.T) {
	var h Handler
	in := "zone_api_console {\n oidc_issuer https://idp.example/realms/dns\n oidc_client_id console\n oidc_scopes profile email\n oidc_token access_token\n oidc_name \"Example SSO\"\n}"
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
		t.Fatal(err)
	}
	if err := h.Provision(caddyCtx()); err != nil {
		t.Fatal(err)
	}
	o := h.OIDC
	if o.Issuer != "https://idp.example/realms/dns" || o.ClientID != "console" || !reflect.DeepEqual(o.Scopes, []string{"openid", "profile", "email"}) || o.Token != "access_token" || o.Name != "Example SSO" {
		t.Errorf("got %+v", o)
	}
	for _, bad := range []*OIDC{
		{Issuer: "https://idp.example"},
		{ClientID: "console"},
		{Issuer: "http://idp.example", ClientID: "console"},
		{Issuer: "https://idp.example", ClientID: "console", Token: "refresh_token"},
		{Issuer: "https://idp.example/a;b", ClientID: "console"},
		{Issuer: "https://idp.example", ClientID: "console", CAFile: "/nonexistent/ca.pem"},
	} {
		h := &Handler{OIDC: bad}
		if err := h.Provision(caddyCtx()); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

// TestOIDCCAFile: a provider whose certificate the system does not
// trust is read with oidc_ca_file naming its CA, and refused without.
func TestOIDCCAFile(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token"})
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, ok := range map[string]bool{ca: true, "": false} {
		h := &Handler{OIDC: &OIDC{Issuer: srv.URL, ClientID: "console", CAFile: file}}
		c := oidcMeta(t, serve(t, h, "/console/").Body.String())
		if got := c["tokenEndpoint"] == srv.URL+"/token"; got != ok {
			t.Errorf("ca_file %q: meta %v", file, c)
		}
	}
}
