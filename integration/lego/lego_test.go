package lego

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/go-acme/lego/v5/challenge/dns01"
	"github.com/go-acme/lego/v5/providers/dns/pdns"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

const zone = "lego.test"

// setup starts named and Caddy with the PowerDNS API and static tokens:
// admin (everything) and acme (records and reads in lego.test, TXT at
// _acme-challenge names only). It creates lego.test through the PowerDNS
// API and points lego's DNS lookups at named.
func setup(t *testing.T) (ns *testbind.Server, base string, tok map[string]string) {
	t.Helper()
	tok, hash := map[string]string{}, map[string]string{}
	for _, n := range []string{"admin", "acme"} {
		tk, h, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		tok[n], hash[n] = tk, h
	}
	ns = testbind.Start(t, nil)
	cd := testcaddy.Start(t, ns, testcaddy.Options{Handle: "/api*", APIExtra: fmt.Sprintf(`powerdns
			auth static {
				token admin %s
				token acme %s {
					actions records read
					zones %s
					names _acme-challenge.*
					types TXT
				}
			}`, hash["admin"], hash["acme"], zone)})
	r := send(t, cd.Base, tok["admin"], "POST", "/api/v1/servers/localhost/zones", map[string]any{
		"name": zone + ".", "kind": "Native", "nameservers": []string{"ns1.example.net."},
		"rrsets": []any{map[string]any{"name": "www." + zone + ".", "type": "A", "ttl": 300, "records": []any{map[string]any{"content": "192.0.2.80"}}}},
	})
	if r.status != 201 {
		t.Fatalf("creating %s: %d %s", zone, r.status, r.body)
	}
	old := dns01.DefaultClient()
	dns01.SetDefaultClient(dns01.NewClient(&dns01.Options{RecursiveNameservers: []string{ns.DNSAddr}}))
	t.Cleanup(func() { dns01.SetDefaultClient(old) })
	return ns, cd.Base, tok
}

// provider is lego's pdns provider for the API at base with key.
func provider(t *testing.T, base, key string) *pdns.DNSProvider {
	t.Helper()
	cfg := pdns.NewDefaultConfig()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.APIKey, cfg.TTL = u, key, 60
	p, err := pdns.NewDNSProviderConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// served is the TXT data named serves at name, sorted.
func served(t *testing.T, ns *testbind.Server, name string) []string {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeTXT)
	in, err := dns.Exchange(m, ns.DNSAddr)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rr := range in.Answer {
		if txt, ok := rr.(*dns.TXT); ok {
			out = append(out, strings.Join(txt.Txt, ""))
		}
	}
	slices.Sort(out)
	return out
}

type answer struct {
	status int
	body   []byte
}

// send sends a PowerDNS request with X-API-Key.
func send(t *testing.T, base, key, method, path string, body any) answer {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, b}
}

// TestLegoPresentCleanUp runs lego's provider for a certificate of
// lego.test and *.lego.test: two challenges for the same name,
// _acme-challenge.lego.test, at once (the case of go-acme/lego#2500),
// with the admin token and with the token scoped to _acme-challenge TXT.
// Each TXT value is served while presented and gone after its CleanUp;
// the other value survives the first CleanUp.
func TestLegoPresentCleanUp(t *testing.T) {
	ns, base, tok := setup(t)
	name := "_acme-challenge." + zone
	for _, who := range []string{"admin", "acme"} {
		t.Run(who, func(t *testing.T) {
			ctx := context.Background()
			p := provider(t, base, tok[who])
			ka1, ka2 := "keyauth-apex-"+who, "keyauth-wildcard-"+who
			v1 := dns01.GetChallengeInfo(ctx, zone, ka1).Value
			// ACME names the wildcard's authorization by the base
			// name, so lego calls Present for lego.test twice, with two
			// key authorizations.
			v2 := dns01.GetChallengeInfo(ctx, zone, ka2).Value
			if err := p.Present(ctx, zone, "token1", ka1); err != nil {
				t.Fatalf("Present %s: %v", zone, err)
			}
			if err := p.Present(ctx, zone, "token2", ka2); err != nil {
				t.Fatalf("second Present %s: %v", zone, err)
			}
			want := []string{v1, v2}
			slices.Sort(want)
			if got := served(t, ns, name); !slices.Equal(got, want) {
				t.Fatalf("during: named serves %q, want both challenges %q", got, want)
			}
			if err := p.CleanUp(ctx, zone, "token1", ka1); err != nil {
				t.Fatalf("CleanUp %s: %v", zone, err)
			}
			if got := served(t, ns, name); !slices.Equal(got, []string{v2}) {
				t.Fatalf("after the first CleanUp: named serves %q, want only %q (lego#2500)", got, v2)
			}
			if err := p.CleanUp(ctx, zone, "token2", ka2); err != nil {
				t.Fatalf("second CleanUp %s: %v", zone, err)
			}
			if got := served(t, ns, name); len(got) != 0 {
				t.Fatalf("after: named still serves %q", got)
			}
		})
	}
}

// TestLegoScopedTokenElsewhere: the token lego was given gets 403, in
// PowerDNS's error shape, for everything but _acme-challenge TXT in
// lego.test, and nothing changes.
func TestLegoScopedTokenElsewhere(t *testing.T) {
	ns, base, tok := setup(t)
	const zp = "/api/v1/servers/localhost/zones/"
	serial := func() string {
		r := send(t, base, tok["admin"], "GET", zp+zone+".?rrsets=false", nil)
		var z map[string]any
		_ = json.Unmarshal(r.body, &z)
		return fmt.Sprint(z["serial"])
	}
	before := serial()
	rrsets := func(name, typ, content string) map[string]any {
		return map[string]any{"rrsets": []any{map[string]any{"name": name, "type": typ, "ttl": 60, "changetype": "REPLACE",
			"records": []any{map[string]any{"content": content, "disabled": false}}}}}
	}
	for _, tc := range []struct {
		what, method, path string
		body               any
	}{
		{"an A record", "PATCH", zp + zone + ".", rrsets("www."+zone+".", "A", "192.0.2.99")},
		{"TXT at another name", "PATCH", zp + zone + ".", rrsets("other."+zone+".", "TXT", `"x"`)},
		{"another zone", "POST", "/api/v1/servers/localhost/zones", map[string]any{"name": "other.test.", "kind": "Native", "nameservers": []string{"ns1.example.net."}}},
		{"delete the zone", "DELETE", zp + zone + ".", nil},
		{"the zone's metadata", "PUT", zp + zone + "./metadata/ALSO-NOTIFY", map[string]any{"metadata": []string{"192.0.2.1"}}},
		{"server statistics", "GET", "/api/v1/servers/localhost/statistics", nil},
		{"export", "GET", zp + zone + "./export", nil},
	} {
		r := send(t, base, tok["acme"], tc.method, tc.path, tc.body)
		var eb map[string]any
		if r.status != http.StatusForbidden || json.Unmarshal(r.body, &eb) != nil || len(eb) != 1 || eb["error"] == "" {
			t.Errorf("%s: %d %s, want 403 {\"error\": …}", tc.what, r.status, r.body)
		}
	}
	if after := serial(); after != before {
		t.Errorf("refused requests moved the serial %s -> %s", before, after)
	}
	m := new(dns.Msg)
	m.SetQuestion("www."+zone+".", dns.TypeA)
	if in, err := dns.Exchange(m, ns.DNSAddr); err != nil || len(in.Answer) != 1 || in.Answer[0].(*dns.A).A.String() != "192.0.2.80" {
		t.Errorf("www A changed: %v %v", in, err)
	}
	// What it may read is filtered to its scope: the zone shows only
	// _acme-challenge TXT RRsets (none now).
	r := send(t, base, tok["acme"], "GET", zp+zone+".", nil)
	if r.status != 200 || strings.Contains(string(r.body), `"type":"A"`) || strings.Contains(string(r.body), `"type":"NS"`) {
		t.Errorf("scoped GET zone = %d %s", r.status, r.body)
	}
}
