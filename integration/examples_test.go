package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestExampleCaddyfileJSONErrors runs examples/Caddyfile.dev (on free
// loopback ports) and checks that paths Caddy cleans out of /api/v1/
// (.., %2e%2e, an escaped slash) answer the API's JSON error body, not
// Caddy's text/plain (defect 8 of issue 10: they answered "not found" as
// text). The production Caddyfile has the same blocks.
func TestExampleCaddyfileJSONErrors(t *testing.T) {
	ns := startNamed(t)
	c := newCaddy(t, ns, caddyOpts{env: []string{
		"ZONEAPI_ZONE_DIR=" + ns.ZoneDir, "ZONEAPI_RNDC_SERVER=" + ns.ControlAddr,
		"ZONEAPI_RNDC_KEY_FILE=" + ns.RNDCKeyFile, "ZONEAPI_UPDATE_KEY_FILE=" + ns.TSIGKeyFile,
		"ZONEAPI_DNS_SERVER=" + ns.DNSAddr, "DISABLE_AUTH=true",
	}})
	devCaddyfile(t, c)
	c.Start()
	t.Cleanup(c.Stop)
	// The dev Caddyfile's grace period is eternal: no idle connections may
	// stay open, or stopping caddy waits for them.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	http.DefaultClient.CloseIdleConnections()

	for _, p := range []string{
		"/api/v1/../x", "/api/v1/%2e%2e/x", "/api/v1/zones/..%2f..", "/api/v1/zones/a%2fb",
		"/api/v1/nothing", "/api/v1//zones", "/api/v1/zones/x%00y", "/elsewhere", "/apix",
	} {
		req, err := http.NewRequest("GET", c.Base+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = p // sent exactly as written
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var eb struct{ Error, Message string }
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || json.Unmarshal(b, &eb) != nil ||
			eb.Error != http.StatusText(resp.StatusCode) || eb.Message == "" || resp.StatusCode < 400 {
			t.Errorf("%s: %d %s %q", p, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
	// The PowerDNS-compatible API answers on the same address (run.sh
	// serves this file).
	for _, p := range []string{"/api", "/api/v1/servers/localhost", "/api/v1/servers/localhost/zones"} {
		resp, err := client.Get(c.Base + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !json.Valid(b) {
			t.Errorf("PowerDNS API %s: %d %s", p, resp.StatusCode, b)
		}
	}
	prod, err := os.ReadFile("../examples/Caddyfile.production")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range []string{"handle_errors {", `respond ` + "`" + `{"error":"Not Found"`} {
		if !strings.Contains(string(prod), block) {
			t.Errorf("examples/Caddyfile.production lacks %q", block)
		}
	}
}

// devCaddyfile writes examples/Caddyfile.dev as c's configuration, with
// free loopback ports for its admin API, its HTTP port and the API's site
// (plain HTTP, so that the test's client needs no CA).
func devCaddyfile(t *testing.T, c *caddy) {
	t.Helper()
	src, err := os.ReadFile("../examples/Caddyfile.dev")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(src)
	for old, new := range map[string]string{
		"admin localhost:2019": "admin " + c.AdminAddr,
		"http_port 8080":       fmt.Sprintf("http_port %d", freePort(t)),
		"localhost:8443 {":     fmt.Sprintf("http://127.0.0.1:%d {", c.Port),
	} {
		if !strings.Contains(conf, old) {
			t.Fatalf("examples/Caddyfile.dev no longer has %q", old)
		}
		conf = strings.Replace(conf, old, new, 1)
	}
	if err := os.WriteFile(c.ConfigPath(), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
}
