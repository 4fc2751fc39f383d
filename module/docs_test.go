package module

import (
	"encoding/json"
	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/config"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"gopkg.in/yaml.v3"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
)

// docsHandler returns a handler with the given docs mode, ready to serve.
func docsHandler(t testing.TB, mode string) *Handler {
	t.Helper()
	h := &Handler{Options: config.Options{Docs: mode}}
	h.setLoggers(zap.NewNop())
	h.router = h.newRouter()
	if err := h.validateDocs(); err != nil {
		t.Fatal(err)
	}
	return h
}

func serve(h *Handler, method, path, token string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, req, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	return w
}

// TestSpecMatchesRoutes fails when a route the handler serves is missing
// from the served document, or the document names a route the handler
// does not serve.
func TestSpecMatchesRoutes(t *testing.T) {
	for _, mode := range []string{"", DocsPublic, DocsOff} {
		h := &Handler{Options: config.Options{Docs: mode}}
		d, err := apispec.Service(h.docsMode())
		if err != nil {
			t.Fatal(err)
		}
		served, documented := h.Routes(), d.Routes()
		for _, r := range served {
			if !slices.Contains(documented, r) {
				t.Errorf("docs %q: the handler serves %s, which the OpenAPI document lacks", h.docsMode(), r)
			}
		}
		for _, r := range documented {
			if !slices.Contains(served, r) {
				t.Errorf("docs %q: the OpenAPI document lists %s, which the handler does not serve", h.docsMode(), r)
			}
		}
	}
}

func TestExplorerPublic(t *testing.T) {
	h := docsHandler(t, DocsPublic)
	w := serve(h, "GET", "/api/v1/docs", "")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Body.String(), `id="swagger-ui"`) {
		t.Fatalf("GET /api/v1/docs: %d %s", w.Code, w.Body)
	}
	// Every asset the page references comes from the binary.
	refs := regexp.MustCompile(`(?:src|href)="(/api/v1/docs/[^"]+)"`).FindAllStringSubmatch(w.Body.String(), -1)
	if len(refs) < 3 {
		t.Fatalf("the page references %d assets", len(refs))
	}
	for _, m := range refs {
		a := serve(h, "GET", m[1], "")
		if a.Code != 200 || a.Body.Len() == 0 {
			t.Errorf("GET %s: %d (%d bytes)", m[1], a.Code, a.Body.Len())
		}
	}
	if w := serve(h, "GET", "/api/v1/docs/swagger-ui-bundle.js", ""); !strings.Contains(w.Header().Get("Content-Type"), "javascript") || w.Body.Len() < 100_000 {
		t.Errorf("bundle: %q, %d bytes", w.Header().Get("Content-Type"), w.Body.Len())
	}
	if w := serve(h, "GET", "/api/v1/docs/explorer.js", ""); !strings.Contains(w.Body.String(), `"/api/v1/openapi.json"`) || strings.Contains(w.Body.String(), "https://") {
		t.Errorf("explorer.js must load the local spec and nothing remote: %s", w.Body)
	}
	if w := serve(h, "GET", "/api/v1/docs/index.html", ""); w.Code != 404 {
		t.Errorf("unlisted asset: %d", w.Code)
	}

	w = serve(h, "GET", "/api/v1/openapi.json", "")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Servers []struct{ URL string }    `json:"servers"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &doc) != nil || doc.OpenAPI != "3.1.0" {
		t.Fatalf("GET /api/v1/openapi.json: %d %.200s", w.Code, w.Body)
	}
	var listed []string
	for p, item := range doc.Paths {
		for m := range item {
			if m != "parameters" {
				listed = append(listed, strings.ToUpper(m)+" "+doc.Servers[0].URL+p)
			}
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, h.Routes()) {
		t.Errorf("openapi.json routes differ from the handler's\n got: %v\nwant: %v", listed, h.Routes())
	}
	w = serve(h, "GET", "/api/v1/openapi.yaml", "")
	var y map[string]any
	if w.Code != 200 || yaml.Unmarshal(w.Body.Bytes(), &y) != nil || y["openapi"] != "3.1.0" {
		t.Errorf("GET /api/v1/openapi.yaml: %d", w.Code)
	}
}

func TestDocsAuthAndOff(t *testing.T) {
	h := docsHandler(t, "") // auth by default
	for _, p := range []string{"/api/v1/docs", "/api/v1/openapi.json", "/api/v1/openapi.yaml", "/api/v1/docs/swagger-ui.css"} {
		if w := serve(h, "GET", p, ""); w.Code != 401 || !strings.Contains(w.Body.String(), auth.MsgMissingHeader) {
			t.Errorf("auth, no token: GET %s = %d %s", p, w.Code, w.Body)
		}
		if w := serve(h, "GET", p, "tok"); w.Code != 200 {
			t.Errorf("auth, token: GET %s = %d", p, w.Code)
		}
	}
	h = docsHandler(t, DocsOff)
	for _, p := range []string{"/api/v1/docs", "/api/v1/openapi.json"} {
		if w := serve(h, "GET", p, "tok"); w.Code != 404 {
			t.Errorf("off: GET %s = %d", p, w.Code)
		}
	}
	if err := (&Handler{Options: config.Options{Docs: "sometimes"}}).validateDocs(); err == nil {
		t.Error("docs sometimes accepted")
	}
}

// TestCheckBody: a body that breaks the route's schema is refused with
// each violation by pointer; a valid one is decoded.
func TestCheckBody(t *testing.T) {
	h := docsHandler(t, "")
	p := routeParams(t, h, "POST", "/api/v1/zones")
	req := httptest.NewRequest("POST", "/api/v1/zones", strings.NewReader(`{"zoneName":"example.com","zoneType":"bogus","zoneConfig":{"ttl":-1},"extra":true}`))
	w := httptest.NewRecorder()
	var cz apitypes.CreateZone
	if h.router.Decode(w, req, p, &cz) {
		t.Fatal("invalid body passed")
	}
	var body bodyViolations
	if w.Code != 400 || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.Error != "Bad Request" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var ptrs []string
	for _, v := range body.Violations {
		ptrs = append(ptrs, v.Pointer)
	}
	slices.Sort(ptrs)
	if want := []string{"/extra", "/zoneConfig/ttl", "/zoneType"}; !slices.Equal(ptrs, want) {
		t.Errorf("violations at %v, want %v (%s)", ptrs, want, w.Body)
	}
	ok := `{"zoneName":"example.com","zoneType":"primary"}`
	req = httptest.NewRequest("POST", "/api/v1/zones", strings.NewReader(ok))
	w = httptest.NewRecorder()
	if !h.router.Decode(w, req, p, &cz) {
		t.Fatalf("valid body refused: %s", w.Body)
	}
	if cz.ZoneName != "example.com" || cz.ZoneType != "primary" {
		t.Errorf("decoded %+v", cz)
	}
}

// bodyViolations is the 400 of a body that fails its schema
// (rest.DecodeBody's), as a client reads it.
type bodyViolations struct {
	Error      string              `json:"error"`
	Message    string              `json:"message"`
	Violations []apispec.Violation `json:"violations"`
}

// maxViolations is the most violations one 400 lists (rest's).
const maxViolations = 100

// routeParams is what the router gives the handler of method and path.
func routeParams(t testing.TB, h *Handler, method, path string) apirouter.Params {
	t.Helper()
	rt, p, _ := h.router.Match(httptest.NewRequest(method, path, nil))
	if rt == nil {
		t.Fatalf("no route for %s %s", method, path)
	}
	return p
}

// TestAsyncAPIServedNextToOpenAPI checks that the AsyncAPI document is
// served beside the OpenAPI one in each docs mode, as JSON and YAML, and
// that the explorer page and the OpenAPI description link to it.
func TestAsyncAPIServedNextToOpenAPI(t *testing.T) {
	h := docsHandler(t, DocsPublic)
	w := serve(h, "GET", "/api/v1/asyncapi.json", "")
	var doc map[string]any
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || json.Unmarshal(w.Body.Bytes(), &doc) != nil || doc["asyncapi"] != "3.0.0" {
		t.Fatalf("GET /api/v1/asyncapi.json: %d %q %.200s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	w = serve(h, "GET", "/api/v1/asyncapi.yaml", "")
	var ydoc map[string]any
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/yaml" || yaml.Unmarshal(w.Body.Bytes(), &ydoc) != nil || ydoc["asyncapi"] != "3.0.0" {
		t.Fatalf("GET /api/v1/asyncapi.yaml: %d %.200s", w.Code, w.Body)
	}
	if page := serve(h, "GET", "/api/v1/docs", "").Body.String(); !strings.Contains(page, `href="/api/v1/asyncapi.json"`) {
		t.Error("the explorer page does not link the AsyncAPI document")
	}
	spec := serve(h, "GET", "/api/v1/openapi.json", "").Body.String()
	if !strings.Contains(spec, "(/api/v1/asyncapi.json)") {
		t.Error("the OpenAPI description does not link the AsyncAPI document")
	}
	if w := serve(docsHandler(t, DocsAuth), "GET", "/api/v1/asyncapi.json", ""); w.Code != 401 {
		t.Errorf("docs auth, no token: %d, want 401", w.Code)
	}
	if w := serve(docsHandler(t, DocsOff), "GET", "/api/v1/asyncapi.json", "t"); w.Code != 404 {
		t.Errorf("docs off: %d, want 404", w.Code)
	}
}

// TestExplorerNotFramed: the explorer's pages (which hold a bearer token
// once authorized) refuse to be framed by another site (clickjacking),
// send no referrer and load no plugins or base URL from elsewhere.
func TestExplorerNotFramed(t *testing.T) {
	h := docsHandler(t, DocsPublic)
	for _, p := range []string{"/api/v1/docs", "/api/v1/docs/oauth2-redirect.html"} {
		w := serve(h, "GET", p, "")
		if w.Code != 200 {
			t.Fatalf("GET %s: %d", p, w.Code)
		}
		csp := w.Header().Get("Content-Security-Policy")
		for _, d := range []string{"frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, d) {
				t.Errorf("GET %s: Content-Security-Policy %q lacks %s", p, csp, d)
			}
		}
		if w.Header().Get("X-Frame-Options") != "DENY" || w.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: X-Frame-Options %q, Referrer-Policy %q", p, w.Header().Get("X-Frame-Options"), w.Header().Get("Referrer-Policy"))
		}
	}
}

// TestViolationsBounded: a body with thousands of schema violations is
// answered with at most maxViolations of them and a message naming the
// first few and how many there are, not with a larger body than it sent.
func TestViolationsBounded(t *testing.T) {
	h := docsHandler(t, "")
	p := routeParams(t, h, "PATCH", "/api/v1/zones/example.com/records")
	changes := make([]string, 5000)
	for i := range changes {
		changes[i] = `{"op":7,"name":"x","type":"A","value":"192.0.2.1"}`
	}
	sent := `{"changes":[` + strings.Join(changes, ",") + `]}`
	req := httptest.NewRequest("PATCH", "/api/v1/zones/example.com/records", strings.NewReader(sent))
	w := httptest.NewRecorder()
	var br apitypes.BatchRequest
	if h.router.Decode(w, req, p, &br) {
		t.Fatal("invalid body passed")
	}
	var body bodyViolations
	if w.Code != 400 || json.Unmarshal(w.Body.Bytes(), &body) != nil {
		t.Fatalf("%d %.300s", w.Code, w.Body)
	}
	if len(body.Violations) != maxViolations || !strings.Contains(body.Message, "and 4995 more") || w.Body.Len() > 20<<10 {
		t.Errorf("%d violations, %d bytes answered to %d sent; message %.300s", len(body.Violations), w.Body.Len(), len(sent), body.Message)
	}
}
