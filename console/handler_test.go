package console

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// serve provisions a handler and serves one GET.
func serve(t *testing.T, h *Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	if h.site == nil {
		if err := h.Provision(caddyCtx()); err != nil {
			t.Fatal(err)
		}
	}
	w := httptest.NewRecorder()
	next := handlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusTeapot)
		return nil
	})
	if err := h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil), next); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestHeadersOnEveryAnswer: the page, each asset, a missing file and the
// redirect all carry the CSP and the other security headers; the page
// is not cached and the assets, under their hash, are for a year.
func TestHeadersOnEveryAnswer(t *testing.T) {
	h := &Handler{}
	page := serve(t, h, "/console/")
	if page.Code != 200 || page.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("page: %d, Cache-Control %q", page.Code, page.Header().Get("Cache-Control"))
	}
	refs := regexp.MustCompile(`(?:src|href)="(assets/[0-9a-f]{16}/[^"]+)"`).FindAllStringSubmatch(page.Body.String(), -1)
	if len(refs) < 3 {
		t.Fatalf("the page names %d hashed assets, want app.js, app.css and the icon:\n%s", len(refs), page.Body)
	}
	if !strings.Contains(page.Body.String(), `<meta name="zoneapi-api" content="/api/v1">`) {
		t.Errorf("the page does not name the API's path:\n%s", page.Body)
	}
	if strings.Contains(page.Body.String(), "style=") || regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(page.Body.String()) {
		t.Errorf("the page has an inline style or script:\n%s", page.Body)
	}
	answers := map[string]*httptest.ResponseRecorder{"/console/": page, "/console": serve(t, h, "/console"), "/console/assets/0000000000000000/app.js": serve(t, h, "/console/assets/0000000000000000/app.js")}
	for _, ref := range refs {
		w := serve(t, h, "/console/"+ref[1])
		answers["/console/"+ref[1]] = w
		if w.Code != 200 || w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("%s: %d, Cache-Control %q", ref[1], w.Code, w.Header().Get("Cache-Control"))
		}
	}
	for _, js := range []string{"app.js", "api.js", "zone.js"} {
		w := serve(t, h, "/console/assets/"+h.site.hash+"/"+js)
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("%s: Content-Type %q, want text/javascript (an ES module needs it)", js, ct)
		}
	}
	for path, w := range answers {
		for k, v := range map[string]string{"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s (%d): %s = %q, want %q", path, w.Code, k, got, v)
			}
		}
	}
	if w := answers["/console"]; w.Code != http.StatusPermanentRedirect || w.Header().Get("Location") != "/console/" {
		t.Errorf("/console: %d to %q, want 308 to /console/", w.Code, w.Header().Get("Location"))
	}
	if w := answers["/console/assets/0000000000000000/app.js"]; w.Code != 404 {
		t.Errorf("an asset under another hash: %d, want 404", w.Code)
	}
	for _, d := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self'", "style-src 'self'"} {
		if !strings.Contains(CSP, d) {
			t.Errorf("the CSP lacks %q", d)
		}
	}
}

// TestOtherPathsPassOn: a request outside the console's path goes to the
// next handler; a configured path and API are used.
func TestOtherPathsPassOn(t *testing.T) {
	h := &Handler{Path: "/ops", API: "/dns/api/v1/"}
	if w := serve(t, h, "/api/v1/zones"); w.Code != http.StatusTeapot {
		t.Errorf("/api/v1/zones: %d, want the next handler's 418", w.Code)
	}
	if w := serve(t, h, "/console/"); w.Code != http.StatusTeapot {
		t.Errorf("/console/ with path /ops: %d, want the next handler's 418", w.Code)
	}
	w := serve(t, h, "/ops/")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `content="/dns/api/v1"`) {
		t.Errorf("/ops/: %d\n%s", w.Code, w.Body)
	}
}

// TestCaddyfile reads the directive's forms and refuses unknown options.
func TestCaddyfile(t *testing.T) {
	for in, want := range map[string]Handler{
		`zone_api_console`:                               {},
		`zone_api_console /ops/`:                         {Path: "/ops/"},
		"zone_api_console {\n path /ops/\n api /x/v1\n}": {Path: "/ops/", API: "/x/v1"},
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(in)); err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if h.Path != want.Path || h.API != want.API {
			t.Errorf("%q: got path %q api %q", in, h.Path, h.API)
		}
	}
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("zone_api_console {\n cdn x\n}")); err == nil {
		t.Error("an unknown option was accepted")
	}
}
