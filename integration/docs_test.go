package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestDocsServed checks the explorer and the specification in a real
// Caddy build: with docs public they need no token, the page's assets
// come from the binary, and the document lists the zone operations. The
// OpenAPI and AsyncAPI documents it serves, JSON and YAML, are byte for
// byte those 7d6c08b served (issue 26; the sums are apispec's
// testdata/served-7d6c08b.sha256, see apispec's TestServedDocumentsUnchanged).
func TestDocsServed(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: "docs public"})
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := http.Get(c.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	code, ctype, page := get("/api/v1/docs")
	if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(page, "swagger-ui-bundle.js") {
		t.Fatalf("GET /api/v1/docs: %d %s", code, ctype)
	}
	for _, a := range []string{"/api/v1/docs/swagger-ui.css", "/api/v1/docs/swagger-ui-bundle.js", "/api/v1/docs/explorer.js"} {
		if code, _, body := get(a); code != 200 || len(body) == 0 {
			t.Errorf("GET %s: %d", a, code)
		}
	}
	code, _, spec := get("/api/v1/openapi.json")
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if code != 200 || json.Unmarshal([]byte(spec), &doc) != nil {
		t.Fatalf("GET /api/v1/openapi.json: %d", code)
	}
	for _, p := range []string{"/v1/zones", "/v1/zones/{name}", "/v1/zones/{name}/records", "/v1/health"} {
		if doc.Paths[p] == nil {
			t.Errorf("the document lacks %s", p)
		}
	}
	sums, err := os.ReadFile("../apispec/testdata/served-7d6c08b.sha256")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		want[name] = sum
	}
	for path, name := range map[string]string{
		"/api/v1/openapi.json":  "openapi.json docs public",
		"/api/v1/openapi.yaml":  "openapi.yaml docs public",
		"/api/v1/asyncapi.json": "asyncapi.json",
		"/api/v1/asyncapi.yaml": "asyncapi.yaml",
	} {
		code, _, body := get(path)
		sum := sha256.Sum256([]byte(body))
		if got := hex.EncodeToString(sum[:]); code != 200 || got != want[name] {
			t.Errorf("GET %s: %d, sha256 %s; 7d6c08b served %s (%s)", path, code, got, want[name], name)
		}
	}
	// The API itself still needs the token.
	if r := c.doAuth("GET", "/api/v1/zones", nil, ""); r.status != 401 {
		t.Errorf("GET /api/v1/zones without a token: %d", r.status)
	}
}
