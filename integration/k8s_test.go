package integration

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
)

// k8sCaddy is the build with the k8s_token_review mode:
// $ZONEAPI_CADDY_K8S, or the one `ZONEAPI_K8S_TOKEN_REVIEW=1
// scripts/build.sh` builds.
var k8sCaddy = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("ZONEAPI_CADDY_K8S"); p != "" {
		return p, nil
	}
	cmd := exec.Command("bash", "../scripts/build.sh")
	cmd.Env = append(os.Environ(), "ZONEAPI_K8S_TOKEN_REVIEW=1")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
})

// TestK8sModeOnlyInItsBuild: the default build lacks the mode, and
// configuring it there fails `caddy validate` saying how to build it;
// the build that asks for it lists it.
func TestK8sModeOnlyInItsBuild(t *testing.T) {
	out, err := exec.Command(caddyBin, "list-modules").Output()
	if err != nil || strings.Contains(string(out), "zone_api.auth.k8s_token_review") || !strings.Contains(string(out), "zone_api.auth.static") {
		t.Fatalf("default build's modules (%v):\n%s", err, out)
	}
	bin, err := k8sCaddy()
	if err != nil {
		t.Fatalf("building the k8s build: %v", err)
	}
	out, err = exec.Command(bin, "list-modules").Output()
	if err != nil || !strings.Contains(string(out), "zone_api.auth.k8s_token_review\n") {
		t.Fatalf("k8s build's modules (%v):\n%s", err, out)
	}
	ns := startNamed(t)
	c := newCaddy(t, ns, caddyOpts{extra: "auth k8s_token_review"})
	cmd := exec.Command(caddyBin, "validate", "--config", c.ConfigPath(), "--adapter", "caddyfile")
	cmd.Env = c.Env()
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "ZONEAPI_K8S_TOKEN_REVIEW=1 bash scripts/build.sh") {
		t.Fatalf("validate in the default build: %v\n%s", err, msg)
	}
}

// TestK8sTokenReviewThroughCaddy: the k8s build checks tokens with a
// TokenReview on a TLS server speaking authentication.k8s.io/v1: an
// allowed account works within its scope, an account of another
// namespace gets 401, an out-of-scope change 403; a token reviewed once
// is not reviewed again within the cache time; the tokens never reach
// the log.
func TestK8sTokenReviewThroughCaddy(t *testing.T) {
	bin, err := k8sCaddy()
	if err != nil {
		t.Fatalf("building the k8s build: %v", err)
	}
	users := map[string]string{
		"cm-token-5f2a":    "system:serviceaccount:cert-manager:cert-manager",
		"admin-token-77c1": "system:serviceaccount:dns:admin",
		"other-token-0b9e": "system:serviceaccount:default:builder",
	}
	var reviews atomic.Int32
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reviews.Add(1)
		var tr authnv1.TokenReview
		if r.Header.Get("Authorization") != "Bearer own-sa-token" || json.NewDecoder(r.Body).Decode(&tr) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if u, ok := users[tr.Spec.Token]; ok {
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, Audiences: tr.Spec.Audiences, User: authnv1.UserInfo{Username: u}}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(tr)
	}))
	defer api.Close()
	dir := t.TempDir()
	ca, tok := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	_ = os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw}), 0o600)
	_ = os.WriteFile(tok, []byte("own-sa-token"), 0o600)

	ns := startNamed(t)
	saved := caddyBin
	caddyBin = bin
	defer func() { caddyBin = saved }()
	c := startCaddy(t, ns, caddyOpts{env: []string{"RUST_LOG=trace"}, extra: fmt.Sprintf(`auth k8s_token_review {
				api_server %s
				ca_file %s
				token_file %s
				audiences zoneapi
				namespaces cert-manager dns
				scope cert-manager:cert-manager actions=records,read names=_acme-challenge.* types=TXT
				scope dns actions=read,records,zones,server
				cache_ttl 1h
			}`, api.URL, ca, tok)})
	as := func(tk, m, p string, b any) *response { return c.doAuth(m, p, b, "Bearer "+tk) }
	expect(t, as("admin-token-77c1", "POST", "/api/v1/zones", zoneBody("k8s.test")), 201, "admin creates")
	expect(t, as("cm-token-5f2a", "POST", "/api/v1/zones/k8s.test/records", map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "v"}), 201, "cert-manager adds its TXT")
	s0 := serialOf(t, ns, "k8s.test")
	expectError(t, as("cm-token-5f2a", "DELETE", "/api/v1/zones/k8s.test", nil), 403, "Forbidden", `"zones" action`)
	expectError(t, as("other-token-0b9e", "GET", "/api/v1/zones", nil), 401, "Unauthorized", "namespace default is not allowed")
	expectError(t, as("nobody", "GET", "/api/v1/zones", nil), 401, "Unauthorized", "Invalid token")
	if serialOf(t, ns, "k8s.test") != s0 {
		t.Error("a refused request changed the zone")
	}
	before := reviews.Load()
	for i := 0; i < 5; i++ {
		expect(t, as("cm-token-5f2a", "GET", "/api/v1/zones/k8s.test/records", nil), 200, "cached")
	}
	if n := reviews.Load() - before; n != 0 {
		t.Errorf("%d reviews for a token reviewed within the cache time", n)
	}
	text := c.Log()
	for tk := range users {
		if strings.Contains(text, tk) {
			t.Errorf("token %s appears in the log", tk)
		}
	}
	// The API gone: 503, logged at error.
	api.Close()
	expectError(t, as("fresh-token", "GET", "/api/v1/zones", nil), 503, "Service Unavailable", "could not be reached")
	for _, e := range moduleLogs(t, c) {
		if e.s("level") == "error" && e.s("message") == "authentication unavailable" && strings.Contains(e.s("error"), "could not be reached") {
			return
		}
	}
	t.Error("no error log line for the unreachable API")
}
