package module

import (
	"net/http"
	"net/http/httptest"
	"testing"

	_ "github.com/zoneapi/caddy-zoneapi/powerdns" // the PowerDNS API's mount
)

// TestPowerDNSCORS: PowerDNS's webserver answers a CORS preflight of its
// API (OPTIONS, sent by browsers without credentials) with 200 and
// Access-Control-Allow-Origin "*", -Headers "Content-Type, X-API-Key",
// -Methods "GET, POST, PUT, PATCH, DELETE, OPTIONS" (PowerDNS's
// test_Basics.py test_cors), and its authenticated answers carry
// Access-Control-Allow-Origin "*"; a request without a key stays 401. The
// zone API's own paths keep answering as before: no CORS headers. Before,
// the preflight was 401 without credentials and 405 with them.
func TestPowerDNSCORS(t *testing.T) {
	h, _, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{"admin": ""})
	h.PowerDNS = true
	if err := h.provisionPowerDNS(); err != nil {
		t.Fatal(err)
	}
	h.router = h.newRouter()
	serve := func(method, path, tok string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, nil)
		r.Header.Set("Origin", "https://admin.example")
		if method == http.MethodOptions {
			r.Header.Set("Access-Control-Request-Method", "PATCH")
			r.Header.Set("Access-Control-Request-Headers", "content-type,x-api-key")
		}
		if tok != "" {
			r.Header.Set("X-API-Key", tok)
		}
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		return w
	}
	for _, path := range []string{"/api", "/api/v1", "/api/v1/servers/localhost", "/api/v1/servers/localhost/zones",
		"/api/v1/servers/localhost/zones/example.com.", "/api/v1/servers/localhost/zones/example.com./metadata/ALSO-NOTIFY"} {
		w := serve(http.MethodOptions, path, "")
		want := map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Headers": "Content-Type, X-API-Key",
			"Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
			"Access-Control-Max-Age":       "3600",
		}
		if w.Code != http.StatusOK || w.Body.Len() != 0 {
			t.Errorf("OPTIONS %s: %d %q, want 200 with no body", path, w.Code, w.Body)
		}
		for k, v := range want {
			if got := w.Header().Get(k); got != v {
				t.Errorf("OPTIONS %s: %s %q, want %q", path, k, got, v)
			}
		}
	}
	if w := serve(http.MethodGet, "/api/v1/servers/localhost", toks["admin"]); w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET with the key: %d, Access-Control-Allow-Origin %q; want 200 and *", w.Code, w.Header().Get("Access-Control-Allow-Origin"))
	}
	if w := serve(http.MethodGet, "/api/v1/servers/localhost", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("GET without a key: %d, want 401", w.Code)
	}
	// The zone API's paths: no preflight answered, no CORS header.
	for _, tc := range []struct{ method, path, tok string }{
		{http.MethodOptions, "/api/v1/zones", ""},
		{http.MethodOptions, "/api/v1/zones", toks["admin"]},
		{http.MethodGet, "/api/v1/zones", toks["admin"]},
	} {
		w := serve(tc.method, tc.path, tc.tok)
		if tc.method == http.MethodOptions && w.Code == http.StatusOK {
			t.Errorf("%s %s: 200, want the zone API's refusal as before", tc.method, tc.path)
		}
		for k := range w.Header() {
			if len(k) > 15 && k[:15] == "Access-Control-" {
				t.Errorf("%s %s: %s %q, want no CORS header on the zone API", tc.method, tc.path, k, w.Header().Get(k))
			}
		}
	}
}
