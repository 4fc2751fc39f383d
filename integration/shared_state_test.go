package integration

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestReloadsReleaseSharedState loads twenty configs through Caddy's admin
// API, each with another dns_server spelling and another update key for
// both the zone_api handler and the external-dns webhook (another site),
// and reads a zone's records through both after each: the goroutines of
// the caddy process and its open connections to named stay flat, because
// every generation releases the DNS updaters (and their connections) it no
// longer shares.
func TestReloadsReleaseSharedState(t *testing.T) {
	const reloads = 20
	keys := make([]string, reloads) // inline secrets, one key per reload
	var extra strings.Builder
	for i := range keys {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		keys[i] = base64.StdEncoding.EncodeToString(b)
		fmt.Fprintf(&extra, "key \"reload-%d\" { algorithm hmac-sha256; secret %q; };\n", i, keys[i])
	}
	ns := testbind.Start(t, &testbind.Options{ExtraConfig: extra.String()})
	c := startCaddy(t, ns, caddyOpts{})
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("shared.test")), http.StatusCreated, "create")
	dnsPort := ns.DNSAddr[strings.LastIndexByte(ns.DNSAddr, ':')+1:]
	ctlPort := ns.ControlAddr[strings.LastIndexByte(ns.ControlAddr, ':')+1:]

	webhook := freePort(t)
	base := c.Caddyfile("10s")
	load := func(i int) {
		t.Helper()
		server := "127.0.0.1:" + dnsPort
		if i%2 == 1 {
			server = "localhost:" + dnsPort
		}
		cfg := strings.Replace(base, "dns_server "+ns.DNSAddr, "dns_server "+server, 1)
		cfg = strings.Replace(cfg, "update_key_file "+ns.TSIGKeyFile, fmt.Sprintf("update_key reload-%d hmac-sha256 %s", i, keys[i]), 1)
		cfg += fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	zone_api_external_dns {
		zones shared.test
		dns_server %s
		update_key reload-%d hmac-sha256 %s
	}
}
`, webhook, server, i, keys[i])
		resp, err := http.Post("http://"+c.AdminAddr+"/load", "text/caddyfile", strings.NewReader(cfg))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("load %d: %d %s", i, resp.StatusCode, body)
		}
		// Each generation talks to named: an SOA query on a pooled
		// connection and a zone transfer signed with its key.
		if code := getStatus(t, c.Base+"/api/v1/zones/shared.test/records"); code != http.StatusOK {
			t.Fatalf("records after load %d: status %d", i, code)
		}
		if code := getStatus(t, fmt.Sprintf("http://127.0.0.1:%d/records", webhook)); code != http.StatusOK {
			t.Fatalf("webhook records after load %d: status %d", i, code)
		}
	}
	measure := func() (goroutines, conns int) {
		return caddyGoroutines(t, c), establishedTo(t, dnsPort, ctlPort)
	}

	const warm = 5
	for i := range warm {
		load(i)
	}
	g0, c0 := measure()
	for i := warm; i < reloads; i++ {
		load(i)
	}
	// The last Cleanup has run when /load returns; the slack covers the
	// goroutines of the test's own HTTP connections coming and going.
	var g, n int
	for try := 0; try < 50; try++ {
		if g, n = measure(); g <= g0+5 && n <= c0+1 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("after %d loads: %d goroutines, %d connections to named; after %d: %d, %d", warm, g0, c0, reloads, g, n)
	if g > g0+5 {
		t.Errorf("goroutines grew from %d to %d over %d reloads", g0, g, reloads-warm)
	}
	if n > c0+1 {
		t.Errorf("open connections to named grew from %d to %d over %d reloads", c0, n, reloads-warm)
	}
}

// caddyGoroutines reads the goroutine count of the caddy process from its
// admin API's profile endpoint.
func caddyGoroutines(t testing.TB, c *caddy) int {
	t.Helper()
	resp, err := http.Get("http://" + c.AdminAddr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "goroutine profile: total")))
	if err != nil {
		t.Fatalf("goroutine profile: %q", line)
	}
	return n
}

// establishedTo counts the established TCP connections whose remote port
// is one of ports (named's DNS and control ports: only caddy connects to
// them in this test).
func establishedTo(t testing.TB, ports ...string) int {
	t.Helper()
	want := map[string]bool{}
	for _, p := range ports {
		n, _ := strconv.Atoi(p)
		want[fmt.Sprintf("%04X", n)] = true
	}
	count := 0
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 4 || fields[3] != "01" { // 01: ESTABLISHED
				continue
			}
			remote := fields[2]
			if want[remote[strings.LastIndexByte(remote, ':')+1:]] {
				count++
			}
		}
	}
	return count
}

// getStatus GETs url with the test token on a new connection and returns
// the status. Right after a reload, a new connection may still be reset by
// the old config's socket (see "Reloads" in docs/operations.md): that is tried
// again, as an HTTP/1.1 client should for an idempotent request.
func getStatus(t testing.TB, url string) int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		var resp *http.Response
		if resp, err = client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		}
	}
	t.Fatalf("GET %s: %v", url, err)
	return 0
}
