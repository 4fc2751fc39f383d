package module

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	_ "github.com/zoneapi/caddy-zoneapi/powerdns" // the PowerDNS API's mount
)

// TestPrimariesNeedTheServerAction: a secondary zone's primaries make
// named transfer from the addresses the client names (an SSRF and a port
// scanner, and a copier of any zone a server there lets this host
// transfer), as an import by AXFR does, which needs the server action.
// So does naming primaries: on the REST create and PATCH, and the
// PowerDNS API's create and PUT with masters; without it the answer is
// 403 and named hears nothing. A token with the zones action alone may
// name primaries inside the configured allowed_primaries networks. Before
// the fix every one of these requests reached named.
func TestPrimariesNeedTheServerAction(t *testing.T) {
	const (
		create = `{"zoneName":"sec.tenant.test","zoneType":"secondary","zoneConfig":{"primaries":[%s]}}`
		patch  = `{"primaries":[%s]}`
		pdnsC  = `{"name":"sec.tenant.test.","kind":"Slave","masters":[%s]}`
		pdnsU  = `{"masters":[%s]}`
	)
	type req struct{ method, path, body string }
	reqs := func(addrs string) []req {
		f := func(s string) string { return strings.Replace(s, "%s", addrs, 1) }
		return []req{
			{"POST", "/api/v1/zones", f(create)},
			{"PATCH", "/api/v1/zones/sec.tenant.test", f(patch)},
			{"POST", "/api/v1/servers/localhost/zones", f(pdnsC)},
			{"PUT", "/api/v1/servers/localhost/zones/sec.tenant.test.", f(pdnsU)},
		}
	}
	for _, tc := range []struct {
		name, token string
		allowed     []string
		addrs       string
		refused     bool
	}{
		{"tenant, any address", "tenant", nil, `"192.0.2.53"`, true},
		{"tenant, named itself", "tenant", nil, `"127.0.0.1:53"`, true},
		{"zones action on every zone", "zonesOnly", nil, `"192.0.2.53"`, true},
		{"admin", "admin", nil, `"192.0.2.53"`, false},
		{"server action", "server", nil, `"192.0.2.53"`, false},
		{"tenant inside allowed_primaries", "tenant", []string{"192.0.2.0/24", "2001:db8::/32"}, `"192.0.2.53", "[2001:db8::1]:5353", "192.0.2.54 key xfr"`, false},
		{"tenant, one outside allowed_primaries", "tenant", []string{"192.0.2.0/24"}, `"192.0.2.53", "10.0.0.1"`, true},
		{"tenant, mapped address outside", "tenant", []string{"192.0.2.0/24"}, `"::ffff:10.0.0.1"`, true},
	} {
		for _, rq := range reqs(tc.addrs) {
			if strings.HasPrefix(rq.path, "/api/v1/servers") && strings.Contains(tc.addrs, " key ") {
				continue // the PowerDNS API has no key per master
			}
			h, cmds, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
				"tenant":    "zones=tenant.test,*.tenant.test",
				"zonesOnly": "actions=zones,read",
				"server":    "actions=zones,read,server",
				"admin":     "",
			})
			h.PowerDNS = true
			var err error
			if h.primaryNets, err = parsePrimaryNetworks(tc.allowed); err != nil {
				t.Fatal(err)
			}
			if err := h.provisionPowerDNS(); err != nil {
				t.Fatal(err)
			}
			h.router = newRouter(h.buildRoutes())
			w := httptest.NewRecorder()
			r := httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Authorization", "Bearer "+toks[tc.token])
			_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
			if tc.refused {
				if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "primaries") {
					t.Errorf("%s: %s %s: %d %s, want 403 naming primaries", tc.name, rq.method, rq.path, w.Code, w.Body)
				}
				if cmds.count() != 0 {
					t.Errorf("%s: %s %s: named received %v", tc.name, rq.method, rq.path, cmds.list())
				}
			} else if w.Code == http.StatusForbidden {
				t.Errorf("%s: %s %s: 403 %s", tc.name, rq.method, rq.path, w.Body)
			}
		}
	}
}
