// Package integration tests the Caddy build with the zone_api module end to
// end: a real named started from a generated config on loopback ports, a
// real caddy binary built per xcaddy.json, HTTP requests to the API and DNS
// queries to named.
package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// caddyBin is the caddy binary under test: $ZONEAPI_CADDY, or the one
// scripts/build.sh builds (and caches) from this tree (testcaddy.Binary).
var caddyBin string

func TestMain(m *testing.M) {
	bin, err := testcaddy.BinaryPath()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	caddyBin = bin
	os.Exit(m.Run())
}

// testToken is the bearer token the tests send; basic mode accepts any
// well-formed token. It must never appear in Caddy's log.
const testToken = "zoneapi-test-token-7c1e"

// caddyOpts tunes the Caddyfile a test runs.
type caddyOpts struct {
	extra string   // extra lines inside the zone_api block
	env   []string // extra environment, e.g. DISABLE_AUTH=true, RUST_LOG=debug
	// handle is the path matcher of the API's handle block (default
	// /api/v1/*; /api* also routes the PowerDNS API's /api).
	handle string
	// control, if set, is the rndc server address caddy uses instead of
	// named's (a proxy that loses replies, say).
	control string
	// bin is the caddy binary to run instead of caddyBin (a baseline
	// build, for benchmarks that compare two builds).
	bin string
	// sites are extra site blocks of the Caddyfile.
	sites string
	// zoneDir is the zone directory (default named's; see
	// testcaddy.Options.ZoneDir).
	zoneDir string
}

// caddy is a caddy process of the shared harness (zoneapitest/testcaddy)
// with this package's request helpers.
type caddy struct {
	*testcaddy.Caddy
	t  testing.TB
	ns *testbind.Server // the named it manages
}

// startNamed starts named for one test.
func startNamed(t testing.TB) *testbind.Server {
	return testbind.Start(t, nil)
}

// startCaddy writes a Caddyfile pointing at ns and starts caddy; the test's
// cleanup stops it.
func startCaddy(t testing.TB, ns *testbind.Server, opts caddyOpts) *caddy {
	t.Helper()
	c := newCaddy(t, ns, opts)
	c.Start()
	return c
}

// newCaddy writes the Caddyfile of a caddy that is not started yet: the
// harness's, without automatic HTTPS, with a 5 s grace period.
func newCaddy(t testing.TB, ns *testbind.Server, opts caddyOpts) *caddy {
	t.Helper()
	bin := caddyBin
	if opts.bin != "" {
		bin = opts.bin
	}
	return &caddy{t: t, ns: ns, Caddy: testcaddy.New(t, ns, testcaddy.Options{
		Binary:      bin,
		Global:      "auto_https off",
		GracePeriod: "5s",
		APIExtra:    opts.extra,
		Env:         opts.env,
		Handle:      opts.handle,
		Control:     opts.control,
		Sites:       opts.sites,
		ZoneDir:     opts.zoneDir,
	})}
}

// response is a decoded API answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// str returns a top-level string field of the JSON body.
func (r *response) str(key string) string {
	s, _ := r.body[key].(string)
	return s
}

// do sends a request with the test token and decodes the JSON answer.
func (c *caddy) do(method, path string, body any) *response {
	c.t.Helper()
	return c.doAuth(method, path, body, "Bearer "+testToken)
}

// doAuth sends a request with the given Authorization header ("" = none).
func (c *caddy) doAuth(method, path string, body any, auth string) *response {
	c.t.Helper()
	hdr := map[string]string{}
	if auth != "" {
		hdr["Authorization"] = auth
	}
	return c.send(method, path, body, hdr)
}

// doHdr sends a request with the test token and extra headers.
func (c *caddy) doHdr(method, path string, body any, hdr map[string]string) *response {
	c.t.Helper()
	all := map[string]string{"Authorization": "Bearer " + testToken}
	for k, v := range hdr {
		all[k] = v
	}
	return c.send(method, path, body, all)
}

// send sends a request with the given headers. A JSON answer is decoded;
// an error answer that is not JSON fails the test (the module never
// answers plain text).
func (c *caddy) send(method, path string, body any, hdr map[string]string) *response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &response{status: resp.StatusCode, header: resp.Header, raw: raw}
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	if len(raw) > 0 && raw[0] != '[' && (isJSON || resp.StatusCode >= 400) {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			c.t.Fatalf("%s %s: %d with a non-JSON body %q", method, path, resp.StatusCode, raw)
		}
	}
	return r
}

// expect fails the test unless the response has the wanted status.
func expect(t testing.TB, r *response, status int, what string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d; body %s", what, r.status, status, r.raw)
	}
}

// expectError checks status, the error reason phrase and a message part.
func expectError(t testing.TB, r *response, status int, errText, msgPart string) {
	t.Helper()
	expect(t, r, status, msgPart)
	if r.str("error") != errText {
		t.Errorf("error = %q, want %q (body %s)", r.str("error"), errText, r.raw)
	}
	if !strings.Contains(r.str("message"), msgPart) {
		t.Errorf("message = %q, want it to contain %q", r.str("message"), msgPart)
	}
}

// query asks named one question over UDP.
func query(t testing.TB, ns *testbind.Server, name string, qtype uint16) *dns.Msg {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	cl := &dns.Client{Timeout: 2 * time.Second}
	in, _, err := cl.Exchange(m, ns.DNSAddr)
	if err != nil {
		t.Fatalf("query %s %s: %v", name, dns.TypeToString[qtype], err)
	}
	return in
}

// answers returns the rdata text of the answer RRs of the given type.
func answers(m *dns.Msg, qtype uint16) []string {
	var out []string
	for _, rr := range m.Answer {
		if rr.Header().Rrtype == qtype {
			h := rr.Header().String()
			out = append(out, strings.TrimSpace(strings.TrimPrefix(rr.String(), h)))
		}
	}
	return out
}

// freePort returns a free loopback TCP port.
func freePort(t testing.TB) int { return testcaddy.FreePort(t) }

// dirNames lists the names in dir, sorted, without the .zoneapi folder.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.Name() != ".zoneapi" {
			out = append(out, e.Name())
		}
	}
	return out
}

// zoneBody is a create request for zone with SOA, NS, v4 and v6 glue and
// three records.
func zoneBody(zone string) map[string]any {
	return map[string]any{
		"zoneName": zone,
		"zoneType": "primary",
		"zoneConfig": map[string]any{
			"ttl": 3600,
			"soa": map[string]any{
				"primaryNs":  "ns1." + zone + ".",
				"adminEmail": "hostmaster." + zone + ".",
				"serial":     2026112501,
			},
			"nameServers":   []string{"ns1." + zone + ".", "ns2." + zone + "."},
			"nameServerIps": map[string]string{"ns1." + zone + ".": "192.0.2.53", "ns2." + zone + ".": "2001:db8::53"},
			"records": []map[string]any{
				{"name": "www", "type": "A", "value": "192.0.2.80", "ttl": 300},
				{"name": "@", "type": "MX", "value": "mail." + zone + ".", "priority": 10},
				{"name": "@", "type": "TXT", "value": "v=spf1 mx -all"},
			},
		},
	}
}

// waitFirstLook waits until caddy's restart watch has had its first look
// at named (zoneservice.WatchRestarts, about 4 s after the start): it
// heals as after a restart, with a full reconcile (showzone and zonestatus
// of every managed zone) and rndc notify of every managed primary zone. A
// test that counts control commands waits for it first: otherwise, once
// the test runs longer than those 4 s (under load), the watch's commands
// are counted among the test's own.
func waitFirstLook(t testing.TB, c *caddy) {
	t.Helper()
	waitFor(t, "the restart watch's first look at named", func() bool {
		return strings.Contains(c.Log(), "first look at named since this process started")
	})
}
