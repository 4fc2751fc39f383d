package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
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
		fmt.Sprintf("ZONEAPI_NOTIFY_LISTEN=127.0.0.1:%d", freePort(t)),
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

// TestExamplesConfigureTheHistory: the production example (Caddyfile and
// the named.conf fragment) and the development one (Caddyfile.dev and the
// named.conf files scripts/devconf.sh fills in) set up what the change
// history needs to record changes made outside the API as they happen
// (docs/history.md): notify_listen in the Caddyfile, named's also-notify
// to that address, ixfr-from-differences and max-ixfr-ratio unlimited
// (issue 25, defect 6: neither set any of it). TestDevSetupHistory runs
// the development set-up.
func TestExamplesConfigureTheHistory(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../examples/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	listen := regexp.MustCompile(`(?m)^\s*notify_listen (\S+)$`)
	for _, ex := range []struct{ caddyfile, namedConf, port string }{
		{"Caddyfile.production", "named.conf.fragment", ""},
		{"Caddyfile.dev", "named.conf.dev", "@NOTIFY_PORT@"},
		{"Caddyfile.dev", "named.conf.primary", "@NOTIFY_PORT@"},
	} {
		m := listen.FindStringSubmatch(read(ex.caddyfile))
		if m == nil {
			t.Errorf("examples/%s has no notify_listen", ex.caddyfile)
			continue
		}
		port := ex.port
		if port == "" {
			port = m[1][strings.LastIndexByte(m[1], ':')+1:]
		} else if m[1] != "{env.ZONEAPI_NOTIFY_LISTEN}" {
			t.Errorf("examples/%s: notify_listen %s, not scripts/devconf.sh's {env.ZONEAPI_NOTIFY_LISTEN}", ex.caddyfile, m[1])
		}
		conf := read(ex.namedConf)
		also := regexp.MustCompile(`(?m)^\s*also-notify \{[^}]*127\.0\.0\.1 port ` + regexp.QuoteMeta(port) + `;`)
		for what, ok := range map[string]bool{
			"also-notify to 127.0.0.1 port " + port: also.MatchString(conf),
			"ixfr-from-differences yes":             strings.Contains(conf, "\n\tixfr-from-differences yes;"),
			"max-ixfr-ratio unlimited":              strings.Contains(conf, "\n\tmax-ixfr-ratio unlimited;"),
		} {
			if !ok {
				t.Errorf("examples/%s lacks %s (for %s's notify_listen)", ex.namedConf, what, ex.caddyfile)
			}
		}
	}
}

// TestFleetExamplesSetTheRates: the fleet's examples (the primary, whose
// API keeps a catalog, and the catalog's consumer) set the rates
// docs/fleet.md recommends for a catalog of many zones, those the
// benchmarks' pair runs with (testbind.PairPrimaryTuning,
// PairSecondaryTuning), each commented, and the production fragment names
// them all (commented out, step 7); with named-checkconf installed, each
// example, filled in as scripts/devconf.sh does, and the fragment with
// step 7 in force, passes it. Before, neither example set any of them:
// a secondary took up some 20 new members a second.
func TestFleetExamplesSetTheRates(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../examples/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	fragment := read("named.conf.fragment")
	for _, ex := range []struct{ namedConf, tuning string }{
		{"named.conf.primary", testbind.PairPrimaryTuning},
		{"named.conf.secondary", testbind.PairSecondaryTuning},
	} {
		conf := read(ex.namedConf)
		for _, opt := range strings.Split(strings.TrimSuffix(ex.tuning, ";"), ";") {
			opt = strings.TrimSpace(opt)
			if !regexp.MustCompile(`(?m)^\t` + regexp.QuoteMeta(opt) + `; +// \S`).MatchString(conf) {
				t.Errorf("examples/%s does not set %q with a comment", ex.namedConf, opt)
			}
			if !regexp.MustCompile(`(?m)^\t//\s+` + regexp.QuoteMeta(opt) + `; +// \S`).MatchString(fragment) {
				t.Errorf("examples/named.conf.fragment does not name %q", opt)
			}
		}
	}
	checkconf, err := exec.LookPath("named-checkconf")
	if err != nil {
		t.Log("no named-checkconf: the examples are not checked by it")
		return
	}
	dir := t.TempDir()
	for _, k := range []string{"rndc-key", "zoneapi-update"} {
		key := fmt.Sprintf("key %q {\n\talgorithm hmac-sha256;\n\tsecret \"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0\";\n};\n", k)
		if err := os.WriteFile(filepath.Join(dir, k+".key"), []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fill := strings.NewReplacer("@STATE@/rndc.key", dir+"/rndc-key.key", "@STATE@/update.key", dir+"/zoneapi-update.key",
		"/etc/bind/zoneapi-rndc.key", dir+"/rndc-key.key", "/etc/bind/zoneapi-update.key", dir+"/zoneapi-update.key",
		"@STATE@", dir, "/var/cache/bind", dir, "@DNS_PORT@", "5353", "@RNDC_PORT@", "9530", "@STATS_PORT@", "8053",
		"@NOTIFY_PORT@", "5399", "@SEC_DNS_PORT@", "5355", "@PRIMARY@", "127.0.0.1 port 5353", "@CATALOG@", "catalog.invalid")
	step7 := regexp.MustCompile(`(?m)^\t//\s+([a-z-]+ \d+;) +//.*$`)
	for name, conf := range map[string]string{
		"named.conf.primary":           read("named.conf.primary"),
		"named.conf.secondary":         read("named.conf.secondary"),
		"named.conf.fragment":          fragment,
		"named.conf.fragment (step 7)": step7.ReplaceAllString(fragment, "\t$1"),
	} {
		path := filepath.Join(dir, "named.conf")
		if err := os.WriteFile(path, []byte(fill.Replace(conf)), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(checkconf, path).CombinedOutput(); err != nil {
			t.Errorf("named-checkconf examples/%s: %v\n%s", name, err, out)
		}
	}
}
