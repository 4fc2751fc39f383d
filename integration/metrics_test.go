package integration

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /metrics without a token and returns every sample by its
// series text, e.g. `zoneapi_zones{type="primary"}`.
func scrape(t testing.TB, c *caddy) map[string]float64 {
	t.Helper()
	resp, err := http.Get(c.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: status %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, mf := range families {
		if !strings.HasPrefix(name, "zoneapi_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			key := name + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[name+"_count{"+strings.Join(labels, ",")+"}"] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestMetrics runs a scripted workload and checks exact counter values,
// the zones gauge, and that counters continue across `caddy reload`.
func TestMetrics(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	// The restart watch's first look asks zonestatus of every zone: had
	// it come during the workload (slow under load), the exact counts
	// below would be off.
	waitFirstLook(t, c)

	for _, z := range []string{"m1.test", "m2.test", "m3.test"} {
		expect(t, c.do("POST", "/api/v1/zones", zoneBody(z)), 201, "create "+z)
	}
	// The same body again is a retry (200); another body for the name is a conflict.
	dup := zoneBody("m1.test")
	dup["zoneConfig"].(map[string]any)["ttl"] = 60
	expect(t, c.do("POST", "/api/v1/zones", dup), 409, "duplicate")
	expect(t, c.do("GET", "/api/v1/zones/m1.test", nil), 200, "get")
	expect(t, c.do("GET", "/api/v1/zones/m2.test", nil), 200, "get")
	expect(t, c.do("GET", "/api/v1/zones/none.test", nil), 404, "get unknown")
	expect(t, c.do("POST", "/api/v1/zones/m1.test/freeze", nil), 200, "freeze")
	expect(t, c.do("POST", "/api/v1/zones/m1.test/freeze", nil), 409, "freeze again")
	// Thaw polls zonestatus until named reports the zone thawed: count
	// those polls apart, since their number depends on named's timing.
	const zs = `zoneapi_rndc_commands_total{command="zonestatus",result="success"}`
	beforeThaw := scrape(t, c)[zs]
	expect(t, c.do("POST", "/api/v1/zones/m1.test/thaw", nil), 200, "thaw")
	thawPolls := scrape(t, c)[zs] - beforeThaw
	if thawPolls < 1 {
		t.Errorf("thaw asked zonestatus %v times, want at least once", thawPolls)
	}
	expect(t, c.do("DELETE", "/api/v1/zones/m3.test", nil), 200, "delete")
	expect(t, c.do("POST", "/api/v1/zones/m1.test/records", map[string]any{"name": "a", "type": "A", "value": "192.0.2.1"}), 201, "add record")
	expect(t, c.do("POST", "/api/v1/zones/m1.test/records", map[string]any{"name": "b", "type": "TXT", "value": "hello"}), 201, "add record")
	expect(t, c.do("POST", "/api/v1/zones/m1.test/records", map[string]any{"name": "www", "type": "CNAME", "value": "a.m1.test."}), 409, "CNAME beside data")
	expect(t, c.doAuth("GET", "/api/v1/zones", nil, ""), 401, "no header")
	expect(t, c.doAuth("GET", "/api/v1/zones", nil, "Bearer "), 401, "empty token")

	want := map[string]float64{
		`zoneapi_http_requests_total{method="POST",route="/api/v1/zones",status="201"}`:               3,
		`zoneapi_http_requests_total{method="POST",route="/api/v1/zones",status="409"}`:               1,
		`zoneapi_http_requests_total{method="GET",route="/api/v1/zones/{name}",status="200"}`:         2,
		`zoneapi_http_requests_total{method="GET",route="/api/v1/zones/{name}",status="404"}`:         1,
		`zoneapi_http_requests_total{method="POST",route="/api/v1/zones/{name}/freeze",status="200"}`: 1,
		`zoneapi_http_requests_total{method="POST",route="/api/v1/zones/{name}/freeze",status="409"}`: 1,
		`zoneapi_http_requests_total{method="GET",route="/api/v1/zones",status="401"}`:                2,
		`zoneapi_http_request_duration_seconds_count{method="POST",route="/api/v1/zones"}`:            4,
		`zoneapi_zone_operations_total{operation="create",result="success"}`:                          3,
		`zoneapi_zone_operations_total{operation="create",result="error"}`:                            1,
		`zoneapi_zone_operations_total{operation="freeze",result="success"}`:                          1,
		`zoneapi_zone_operations_total{operation="freeze",result="error"}`:                            1,
		`zoneapi_zone_operations_total{operation="thaw",result="success"}`:                            1,
		`zoneapi_zone_operations_total{operation="delete",result="success"}`:                          1,
		`zoneapi_rndc_commands_total{command="addzone",result="success"}`:                             3,
		`zoneapi_rndc_commands_total{command="zonestatus",result="error"}`:                            1,
		`zoneapi_rndc_commands_total{command="freeze",result="error"}`:                                1,
		`zoneapi_rndc_commands_total{command="delzone",result="success"}`:                             1,
		`zoneapi_rndc_command_duration_seconds_count{command="addzone"}`:                              3,
		`zoneapi_zone_operations_total{operation="record_add",result="success"}`:                      2,
		`zoneapi_zone_operations_total{operation="record_add",result="error"}`:                        1,
		`zoneapi_dns_updates_total{result="success"}`:                                                 2,
		`zoneapi_dns_updates_total{result="yxdomain"}`:                                                1,
		`zoneapi_dns_update_duration_seconds_count{}`:                                                 3,
		`zoneapi_auth_failures_total{reason="missing_header"}`:                                        1,
		`zoneapi_auth_failures_total{reason="empty_token"}`:                                           1,
		`zoneapi_zones{type="primary"}`:                                                               2,
		`zoneapi_zones{type="secondary"}`:                                                             0,
		`zoneapi_build_info{version="0.1.0"}`:                                                         1,
	}
	want[zs] = 2 + thawPolls
	got := scrape(t, c)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	for k := range got {
		if strings.Contains(k, ".test") {
			t.Errorf("a zone name appears in a label: %s", k)
		}
	}

	// Control commands made on the records path are counted as well: a
	// record add to a frozen zone asks zonestatus twice (settle, then
	// why named refused).
	before := got[zs]
	expect(t, c.do("POST", "/api/v1/zones/m2.test/freeze", nil), 200, "freeze m2")
	expect(t, c.do("POST", "/api/v1/zones/m2.test/records", map[string]any{"name": "f", "type": "A", "value": "192.0.2.1"}), 409, "add to a frozen zone")
	if got = scrape(t, c); got[zs] != before+2 {
		t.Errorf("%s = %v after a record add to a frozen zone, want %v", zs, got[zs], before+2)
	}
	expect(t, c.do("POST", "/api/v1/zones/m2.test/thaw", nil), 200, "thaw m2")

	// A config reload (a real change) keeps the counters.
	reload(t, c, "7s")
	expect(t, c.do("GET", "/api/v1/zones/m1.test", nil), 200, "get after reload")
	got = scrape(t, c)
	if k := `zoneapi_http_requests_total{method="GET",route="/api/v1/zones/{name}",status="200"}`; got[k] != 3 {
		t.Errorf("after reload %s = %v, want 3", k, got[k])
	}
	if k := `zoneapi_zone_operations_total{operation="create",result="success"}`; got[k] != 3 {
		t.Errorf("after reload %s = %v, want 3", k, got[k])
	}
	if k := `zoneapi_zones{type="primary"}`; got[k] != 2 {
		t.Errorf("after reload %s = %v, want 2", k, got[k])
	}
}

// reload writes the test Caddyfile with another rndc timeout (a real
// change) and runs `caddy reload` against the admin API.
func reload(t testing.TB, c *caddy, timeout string) {
	t.Helper()
	if err := os.WriteFile(c.ConfigPath(), []byte(c.Caddyfile(timeout)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(caddyBin, "reload", "--config", c.ConfigPath(), "--adapter", "caddyfile", "--address", c.AdminAddr)
	cmd.Env = c.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("caddy reload: %v\n%s", err, out)
	}
	// The old config's server closes its idle keep-alive connections as
	// it stops; a POST sent on one just then fails with EOF (Go's client
	// retries only idempotent requests), as any HTTP client's would.
	http.DefaultClient.CloseIdleConnections()
}
