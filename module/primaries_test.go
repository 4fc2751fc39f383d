package module

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/auth"
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
			if h.conf.PrimaryNets, err = auth.PrimariesPolicy.Parse(tc.allowed); err != nil {
				t.Fatal(err)
			}
			if err := h.provisionPowerDNS(); err != nil {
				t.Fatal(err)
			}
			h.router = h.newRouter()
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

// TestAlsoNotifyNeedsTheServerAction: a zone's also-notify servers make
// named send NOTIFY messages to the addresses the client names (on every
// change of the zone), so naming them needs the server action as naming
// primaries does: on the REST create (of a primary or a secondary) and
// PATCH, and the PowerDNS API's ALSO-NOTIFY metadata (POST and PUT);
// without it the answer is 403 naming also-notify and named hears
// nothing. A token with the zones action alone may name addresses inside
// the configured allowed_notify networks (allowed_primaries does not
// allow them), and may always remove the list. Before the fix every one
// of these requests reached named.
func TestAlsoNotifyNeedsTheServerAction(t *testing.T) {
	type req struct{ method, path, body string }
	reqs := func(addrs string) []req {
		f := func(s string) string { return strings.Replace(s, "%s", addrs, 1) }
		return []req{
			{"POST", "/api/v1/zones", f(`{"zoneName":"tenant.test","zoneType":"primary","zoneConfig":{"ttl":300,"soa":{"primaryNs":"ns1.tenant.test.","adminEmail":"h.tenant.test.","serial":1,"refresh":3600,"retry":600,"expire":604800,"negativeTtl":300},"nameServers":["ns1.tenant.test."],"nameServerIps":{"ns1.tenant.test.":"192.0.2.1"},"alsoNotify":[%s]}}`)},
			{"POST", "/api/v1/zones", f(`{"zoneName":"sec.tenant.test","zoneType":"secondary","zoneConfig":{"primaries":["198.51.100.1"],"alsoNotify":[%s]}}`)},
			{"PATCH", "/api/v1/zones/tenant.test", f(`{"alsoNotify":[%s]}`)},
			{"POST", "/api/v1/servers/localhost/zones/tenant.test./metadata", f(`{"kind":"ALSO-NOTIFY","metadata":[%s]}`)},
			{"PUT", "/api/v1/servers/localhost/zones/tenant.test./metadata/ALSO-NOTIFY", f(`{"metadata":[%s]}`)},
			{"PUT", "/api/v1/servers/localhost/zones/tenant.test./metadata/also-notify", f(`{"metadata":[%s]}`)},
		}
	}
	for _, tc := range []struct {
		name, token        string
		allowed, primaries []string
		addrs              string
		refused            bool
	}{
		{"tenant, any address", "tenant", nil, nil, `"192.0.2.53"`, true},
		{"tenant, named itself", "tenant", nil, nil, `"127.0.0.1:53"`, true},
		{"zones action on every zone", "zonesOnly", nil, nil, `"192.0.2.53"`, true},
		{"tenant, inside allowed_primaries only", "tenant", nil, []string{"192.0.2.0/24"}, `"192.0.2.53"`, true},
		{"admin", "admin", nil, nil, `"192.0.2.53"`, false},
		{"server action", "server", nil, nil, `"192.0.2.53"`, false},
		{"tenant, an empty list", "tenant", nil, nil, ``, false},
		{"tenant inside allowed_notify", "tenant", []string{"192.0.2.0/24", "2001:db8::/32"}, nil, `"192.0.2.53", "[2001:db8::1]:5353", "192.0.2.54 key xfr"`, false},
		{"tenant, one outside allowed_notify", "tenant", []string{"192.0.2.0/24"}, nil, `"192.0.2.53", "10.0.0.1"`, true},
		{"tenant, mapped address outside", "tenant", []string{"192.0.2.0/24"}, nil, `"::ffff:10.0.0.1"`, true},
	} {
		for _, rq := range reqs(tc.addrs) {
			if strings.HasPrefix(rq.path, "/api/v1/servers") && strings.Contains(tc.addrs, " key ") {
				continue // metadata values are addresses only
			}
			h, cmds, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
				"tenant":    "zones=tenant.test,*.tenant.test",
				"zonesOnly": "actions=zones,read",
				"server":    "actions=zones,read,server",
				"admin":     "",
			})
			h.PowerDNS = true
			var err error
			// The secondary's primary is allowed: only its also-notify
			// servers are in question here.
			if h.conf.PrimaryNets, err = auth.PrimariesPolicy.Parse(append([]string{"198.51.100.1"}, tc.primaries...)); err != nil {
				t.Fatal(err)
			}
			if h.conf.NotifyNets, err = auth.NotifyPolicy.Parse(tc.allowed); err != nil {
				t.Fatal(err)
			}
			if err := h.provisionPowerDNS(); err != nil {
				t.Fatal(err)
			}
			h.router = h.newRouter()
			w := serveAs(h, toks[tc.token], rq.method, rq.path, rq.body)
			if tc.refused {
				if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "also-notify") {
					t.Errorf("%s: %s %s: %d %s, want 403 naming also-notify", tc.name, rq.method, rq.path, w.Code, w.Body)
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
