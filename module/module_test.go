package module

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rndc"
)

func TestMatch(t *testing.T) {
	h := &Handler{}
	h.router = h.newRouter()
	cases := []struct {
		method, path, template, name string
		allowed                      string
	}{
		{"GET", "/api/v1/health", "/api/v1/health", "", ""},
		{"HEAD", "/api/v1/health", "/api/v1/health", "", ""},
		{"GET", "/api/v1/zones/", "/api/v1/zones", "", ""},
		{"GET", "/api/v1/zones/example.com", "/api/v1/zones/{name}", "example.com", ""},
		{"GET", "/api/v1/zones/a%2Fb", "/api/v1/zones/{name}", "a/b", ""},
		{"POST", "/api/v1/zones/example.com/thaw", "/api/v1/zones/{name}/thaw", "example.com", ""},
		{"PUT", "/api/v1/zones", "", "", "POST,GET"},
		{"GET", "/api/v1/zones/x/freeze", "", "", "POST"},
		{"GET", "/api/v1/zonesx", "", "", ""},
		{"GET", "/api/v1/zones/x/y/z", "", "", ""},
		{"GET", "/api/v1//zones", "", "", ""}, // unclean: no redirect, no match
		{"DELETE", "/api/v1/zones/x/records/", "/api/v1/zones/{name}/records", "x", ""},
		{"PATCH", "/api/v1/zones/x/status", "", "", "GET"},
		{"GET", "/api/v1/docs/swagger-ui.css", "/api/v1/docs/{file}", "swagger-ui.css", ""},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		rt, p, allowed := h.router.Match(req)
		got := ""
		if rt != nil {
			got = rt.Template
		}
		if got != tc.template || p.Name != tc.name || strings.Join(allowed, ",") != tc.allowed {
			t.Errorf("%s %s: route %q name %q allowed %v; want %q %q %q", tc.method, tc.path, got, p.Name, allowed, tc.template, tc.name, tc.allowed)
		}
	}
}

// TestServeHTTPPassesOtherPaths: requests outside /api/v1 go to next.
func TestServeHTTPPassesOtherPaths(t *testing.T) {
	h := &Handler{}
	h.setLoggers(zap.NewNop())
	h.router = h.newRouter()
	called := false
	next := nextFunc(func(w http.ResponseWriter, r *http.Request) error { called = true; return nil })
	for _, p := range []string{"/metrics", "/api/v10/x", "/"} {
		called = false
		if err := h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil), next); err != nil || !called {
			t.Errorf("%s: next called=%v err=%v", p, called, err)
		}
	}
	called = false
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/health", nil), next)
	if called || w.Code != 200 || !strings.Contains(w.Body.String(), `"healthy"`) {
		t.Errorf("health: next called=%v, %d %s", called, w.Code, w.Body)
	}
}

type nextFunc func(http.ResponseWriter, *http.Request) error

func (f nextFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) error { return f(w, r) }

// TestProvisionDefaults: placeholders that expand to nothing mean the
// defaults; Provision touches neither the disk nor BIND (the key file and
// zone directory need not exist); a bad log filter fails it.
func TestProvisionDefaults(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	h := &Handler{Options: config.Options{
		ZoneDir:   "/nonexistent/zones",
		RNDC:      &config.RNDCConfig{Server: "{env.ZONEAPI_TEST_UNSET_SERVER}", Key: config.KeyConfig{File: "/nonexistent/rndc.key"}},
		DNSServer: "{env.ZONEAPI_TEST_UNSET_DNS}",
	}}
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if h.conf.RNDCServer != config.DefaultRNDCServer || h.conf.DNSServer != config.DefaultDNSServer {
		t.Errorf("servers %q %q, want the defaults", h.conf.RNDCServer, h.conf.DNSServer)
	}
	if h.cell.backend != nil {
		t.Error("Provision resolved the backend")
	}
	if err := h.Cleanup(); err != nil {
		t.Fatal(err)
	}

	bad := &Handler{Options: config.Options{ZoneDir: "/z", LogFilter: "info,zone_api=loud"}}
	if err := bad.Provision(ctx); err == nil || !strings.Contains(err.Error(), `unknown level "loud"`) {
		t.Errorf("Provision with a bad log_filter: %v", err)
	}
}

// TestSharedStateAcrossGenerations: the zone store and the DNS updater
// are held from Provision to Cleanup; across the overlap of two config
// generations with the same zone_dir, dns_server and key they are the same
// objects, and a generation that moves away releases them.
func TestSharedStateAcrossGenerations(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	key := &config.KeyConfig{Name: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}
	gen := func(dir, dns string) *Handler {
		h := &Handler{Options: config.Options{ZoneDir: dir, DNSServer: dns, UpdateKey: key,
			RNDC: &config.RNDCConfig{Key: config.KeyConfig{File: "/nonexistent/rndc.key"}}}}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		return h
	}
	refs := func(dir string, h *Handler) (int, int) {
		s, _ := storePool.References(dir)
		u := sharedupdater.References(updaterPoolKey(h.conf.DNSServer, h.conf.UpdateKey, h.conf.RNDCTimeout))
		return s, u
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	one := gen(dirA, "127.0.0.1:53")
	two := gen(dirA, "127.0.0.1:53") // provisioned before one's Cleanup
	if one.store != two.store || one.updater != two.updater {
		t.Fatal("two generations with the same settings do not share the store and updater")
	}
	if s, u := refs(dirA, one); s != 2 || u != 2 {
		t.Fatalf("references %d %d during the overlap, want 2 2", s, u)
	}
	if err := one.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if s, u := refs(dirA, two); s != 1 || u != 1 {
		t.Fatalf("references %d %d after the old generation's Cleanup, want 1 1", s, u)
	}
	three := gen(dirB, "127.0.0.1:5353") // moves to another zone_dir and server
	key2 := two.updaterKey
	if err := two.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if s, u := refs(dirA, two); s != 0 || u != 0 {
		t.Fatalf("references %d %d of settings no generation uses, want 0 0", s, u)
	}
	if sharedupdater.References(key2) != 0 {
		t.Error("the old updater is still pooled")
	}
	if s, u := refs(dirB, three); s != 1 || u != 1 {
		t.Fatalf("references %d %d of the new generation, want 1 1", s, u)
	}
	if err := three.Cleanup(); err != nil {
		t.Fatal(err)
	}
}

// TestSharedUpdaterFollowsTheKey: the pooled updater is kept while the
// resolved key stays the same and replaced when it changes (a key file
// rewritten, then a forced reload).
func TestSharedUpdaterFollowsTheKey(t *testing.T) {
	var s sharedupdater.Updater
	k1, err := rndc.NewKey("k", "hmac-sha256", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0")
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := rndc.NewKey("k", "hmac-sha256", "b3RoZXJvdGhlcm90aGVyb3RoZXJvdGhlcg==")
	u1, err := s.Get("127.0.0.1:53", &k1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.Get("127.0.0.1:53", &k1, time.Second); again != u1 {
		t.Error("the same key gave another updater")
	}
	u2, _ := s.Get("127.0.0.1:53", &k2, time.Second)
	if u2 == u1 {
		t.Error("a new key kept the old updater")
	}
	if ro, _ := s.Get("127.0.0.1:53", nil, time.Second); ro == u2 || ro.Client().CanUpdate() {
		t.Error("no key must give a read-only updater")
	}
	if err := s.Destruct(); err != nil {
		t.Fatal(err)
	}
}
