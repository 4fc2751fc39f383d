package integration

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// logEntry is one decoded log line.
type logEntry map[string]any

func (e logEntry) s(k string) string { v, _ := e[k].(string); return v }

// moduleLogs returns the module's log entries (target zone_api or below).
func moduleLogs(t testing.TB, c *caddy) []logEntry {
	t.Helper()
	var out []logEntry
	sc := bufio.NewScanner(strings.NewReader(c.Log()))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var e logEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line is not one JSON object: %q", line)
		}
		if strings.HasPrefix(e.s("target"), "http.handlers.zone_api") {
			out = append(out, e)
		}
	}
	return out
}

// workload runs a create (POST body), a get, a bad-token request and a
// delete.
func workload(t testing.TB, c *caddy, zone string) {
	t.Helper()
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), 200, "get")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "token-value"}), 201, "add record")
	expect(t, c.doAuth("GET", "/api/v1/zones", nil, "Token "+testToken), 401, "bad header")
	expect(t, c.do("DELETE", "/api/v1/zones/"+zone, nil), 200, "delete")
}

var iso8601 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d(:?\d\d)?)$`)

// TestLogShape: every module line has timestamp (ISO 8601 with zone),
// level, target and message; requests, zone operations and control
// commands are logged at info with their fields.
func TestLogShape(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{env: []string{"RUST_LOG=info"}})
	workload(t, c, "shape.test")
	// A change's own lines (zone deleted) and its audit line come after
	// its answer: wait for the last request's.
	waitLogged(t, c, `"message":"zone deleted"`)
	logs := moduleLogs(t, c)
	if len(logs) == 0 {
		t.Fatal("no module log lines")
	}
	find := func(msg string, fields ...string) logEntry {
		t.Helper()
		for _, e := range logs {
			if e.s("message") == msg {
				for _, f := range fields {
					if _, ok := e[f]; !ok {
						t.Errorf("%q lacks field %q: %v", msg, f, e)
					}
				}
				return e
			}
		}
		t.Fatalf("no %q entry in %v", msg, logs)
		return nil
	}
	for _, e := range logs {
		for _, k := range []string{"timestamp", "level", "target", "message"} {
			if _, ok := e[k]; !ok {
				t.Errorf("entry lacks %q: %v", k, e)
			}
		}
		if !iso8601.MatchString(e.s("timestamp")) {
			t.Errorf("timestamp %q is not ISO 8601 with a zone", e.s("timestamp"))
		}
		if e.s("level") == "debug" {
			t.Errorf("debug entry at RUST_LOG=info: %v", e)
		}
	}
	rc := find("request completed", "method", "uri", "status", "duration_ms")
	if rc.s("level") != "info" || rc.s("target") != "http.handlers.zone_api.http" {
		t.Errorf("request completed: %v", rc)
	}
	zc := find("zone created", "zone", "zone_type", "serial")
	if zc.s("zone") != "shape.test" || zc.s("zone_type") != "primary" || zc["serial"] != float64(2026112501) {
		t.Errorf("zone created: %v", zc)
	}
	find("zone deleted", "zone")
	cc := find("control command executed", "command", "zone")
	if cc.s("target") != "http.handlers.zone_api.rndc" {
		t.Errorf("control command target: %v", cc)
	}
	find("authentication failed", "reason")
}

// TestLogLevels checks what each RUST_LOG admits.
func TestLogLevels(t *testing.T) {
	ns := startNamed(t)
	cases := []struct {
		name, rustLog string
		check         func(t *testing.T, logs []logEntry)
	}{
		{"warn silences info", "warn", func(t *testing.T, logs []logEntry) {
			sawWarn := false
			for _, e := range logs {
				if l := e.s("level"); l == "info" || l == "debug" {
					t.Errorf("%s entry at RUST_LOG=warn: %v", l, e)
				}
				sawWarn = sawWarn || e.s("message") == "authentication failed"
			}
			if !sawWarn {
				t.Error("the auth failure warning is missing")
			}
		}},
		{"rndc debug only", "info,zone_api::rndc=debug", func(t *testing.T, logs []logEntry) {
			sawRNDCDebug := false
			for _, e := range logs {
				if e.s("level") != "debug" {
					continue
				}
				if e.s("target") == "http.handlers.zone_api.rndc" {
					sawRNDCDebug = true
				} else {
					t.Errorf("debug entry outside zone_api::rndc: %v", e)
				}
			}
			if !sawRNDCDebug {
				t.Error("no rndc debug entry")
			}
		}},
		{"debug shows the POST body", "debug", func(t *testing.T, logs []logEntry) {
			for _, e := range logs {
				if e.s("message") == "request body" && strings.Contains(e.s("body"), `"zoneName":"levels.test"`) {
					return
				}
			}
			t.Error("no request body entry with the zone name")
		}},
		{"trace shows wire detail", "trace", func(t *testing.T, logs []logEntry) {
			for _, e := range logs {
				if e.s("target") == "http.handlers.zone_api.rndc.trace" && e.s("message") == "control message" {
					if m, ok := e["rndc_message"].(map[string]any); ok && len(m) > 0 {
						return
					}
				}
			}
			t.Error("no rndc wire entry at trace")
		}},
		{"trace shows DNS messages", "trace", func(t *testing.T, logs []logEntry) {
			for _, e := range logs {
				if e.s("target") == "http.handlers.zone_api.dns.trace" && strings.Contains(e.s("dns_message"), "_acme-challenge.levels.test.") {
					return
				}
			}
			t.Error("no DNS UPDATE message at trace")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startCaddy(t, ns, caddyOpts{env: []string{"RUST_LOG=" + tc.rustLog}})
			workload(t, c, "levels.test")
			tc.check(t, moduleLogs(t, c))
			// No secret at any level: the bearer token, the rndc and TSIG secrets.
			text := c.Log()
			for what, secret := range map[string]string{"bearer token": testToken, "rndc secret": ns.RNDCSecret, "TSIG secret": ns.TSIGSecret} {
				if strings.Contains(text, secret) {
					t.Errorf("the %s appears in the log at RUST_LOG=%s", what, tc.rustLog)
				}
			}
		})
	}
}

// TestInvalidRustLogFailsProvisioning: caddy refuses the config.
func TestInvalidRustLogFailsProvisioning(t *testing.T) {
	ns := startNamed(t)
	c := newCaddy(t, ns, caddyOpts{env: []string{"RUST_LOG=info,zone_api=loud"}})
	cmd := exec.Command(caddyBin, "validate", "--config", c.ConfigPath(), "--adapter", "caddyfile")
	cmd.Env = c.Env()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("caddy validate accepted an invalid RUST_LOG:\n%s", out)
	}
	// The error goes to stderr or, once Caddy redirected its log, to the log file.
	all := string(out) + c.Log()
	if !strings.Contains(all, `unknown level \"loud\"`) && !strings.Contains(all, `unknown level "loud"`) {
		t.Errorf("error does not name the bad level:\n%s", all)
	}
}

// waitLogged waits (up to 10 s) until Caddy's log holds substr: the
// lines a change writes after its answer (audit, its own line).
func waitLogged(t testing.TB, c *caddy, parts ...string) {
	t.Helper()
	has := func() bool {
		for line := range strings.SplitSeq(c.Log(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); !has(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no line with %q in the log after 10 s", parts)
		}
	}
}
