package externaldns

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"sigs.k8s.io/external-dns/endpoint"
	"sigs.k8s.io/external-dns/pkg/apis/externaldns"
	"sigs.k8s.io/external-dns/plan"
	"sigs.k8s.io/external-dns/provider"
	"sigs.k8s.io/external-dns/provider/webhook"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

const token = "externaldns-admin-token"

// setup starts named, the Caddy build with the API and, on a second
// loopback port, the webhook over zones ext.test and sub.ext.test (not
// other.test), creates the three zones through the API and returns
// external-dns's webhook provider connected to it (negotiation done).
func setup(t *testing.T) (*testbind.Server, *client.Client, provider.Provider) {
	t.Helper()
	ns := testbind.Start(t, nil)
	port := testcaddy.FreePort(t)
	cd := testcaddy.Start(t, ns, testcaddy.Options{Sites: fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	handle /external-dns* {
		zone_api_external_dns {
			zones ext.test sub.ext.test
			dns_server %s
			update_key_file %s
		}
	}
}
`, port, ns.DNSAddr, ns.TSIGKeyFile)})
	c, err := client.New(cd.Base, token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, z := range []string{"ext.test", "sub.ext.test", "other.test"} {
		if _, err := c.CreateZone(ctx, client.CreateZone{ZoneName: z, ZoneType: "primary", ZoneConfig: &client.ZoneConfig{
			TTL: 3600, SOA: &client.SOA{PrimaryNS: "ns1.example.net.", AdminEmail: "hostmaster@" + z},
			NameServers: []string{"ns1.example.net."},
			Records:     []client.Record{{Name: "www", Type: "A", Value: "192.0.2.80"}},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	// The timeouts and the body limit (new in v0.23.0; 0 would disable
	// it) are external-dns's flag defaults, as a deployment has them.
	p, err := webhook.New(ctx, &externaldns.Config{
		WebhookProviderURL:          fmt.Sprintf("http://127.0.0.1:%d/external-dns", port),
		WebhookProviderReadTimeout:  5 * time.Second,
		WebhookProviderWriteTimeout: 10 * time.Second,
		WebhookProviderMaxBodySize:  32 << 20,
	}, nil)
	if err != nil {
		t.Fatalf("negotiation: %v", err)
	}
	return ns, c, p
}

func ask(t *testing.T, ns *testbind.Server, name string, qtype uint16) []string {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	in, err := dns.Exchange(m, ns.DNSAddr)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rr := range in.Answer {
		if rr.Header().Rrtype == qtype {
			out = append(out, strings.TrimSpace(strings.TrimPrefix(rr.String(), rr.Header().String())))
		}
	}
	sort.Strings(out)
	return out
}

func find(eps []*endpoint.Endpoint, name, typ string) *endpoint.Endpoint {
	for _, ep := range eps {
		if ep.DNSName == name && ep.RecordType == typ {
			return ep
		}
	}
	return nil
}

func records(t *testing.T, p provider.Provider) []*endpoint.Endpoint {
	t.Helper()
	eps, err := p.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// TestWebhookLifecycle: create, update, delete and an update whose
// updateOld no longer matches, through external-dns's own client, with
// named's answers checked after each.
func TestWebhookLifecycle(t *testing.T) {
	ns, c, p := setup(t)
	ctx := context.Background()

	df := p.GetDomainFilter()
	if !df.Match("app.ext.test") || !df.Match("x.sub.ext.test") || df.Match("www.other.test") {
		t.Errorf("negotiated domain filter %+v", df)
	}
	eps := records(t, p)
	if ep := find(eps, "www.ext.test", "A"); ep == nil || !slices.Equal(ep.Targets, endpoint.Targets{"192.0.2.80"}) || ep.RecordTTL != 3600 {
		t.Fatalf("www.ext.test A not listed as expected: %v", eps)
	}
	if find(eps, "www.other.test", "A") != nil || find(eps, "ext.test", "NS") != nil || find(eps, "ext.test", "SOA") != nil {
		t.Errorf("listed what it must not (another zone, apex NS or SOA): %v", eps)
	}

	// Create: an A, its registry TXT, and a CNAME in the sub-zone.
	owner := `"heritage=external-dns,external-dns/owner=test,external-dns/resource=service/default/app"`
	err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpointWithTTL("app.ext.test", "A", 300, "192.0.2.10"),
		endpoint.NewEndpoint("a-app.ext.test", "TXT", owner),
		endpoint.NewEndpointWithTTL("deep.sub.ext.test", "CNAME", 60, "app.ext.test"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ask(t, ns, "app.ext.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.10"}) {
		t.Errorf("app A: %v", got)
	}
	if got := ask(t, ns, "a-app.ext.test", dns.TypeTXT); len(got) != 1 || got[0] != owner {
		t.Errorf("registry TXT: %v", got)
	}
	if got := ask(t, ns, "deep.sub.ext.test", dns.TypeCNAME); !slices.Equal(got, []string{"app.ext.test."}) {
		t.Errorf("CNAME in the sub-zone (longest suffix): %v", got)
	}
	eps = records(t, p)
	app := find(eps, "app.ext.test", "A")
	txt := find(eps, "a-app.ext.test", "TXT")
	if app == nil || txt == nil || find(eps, "deep.sub.ext.test", "CNAME") == nil {
		t.Fatalf("created records not listed: %v", eps)
	}
	if !slices.Equal(txt.Targets, endpoint.Targets{strings.Trim(owner, `"`)}) {
		t.Errorf("TXT target %q", txt.Targets)
	}
	if adj, err := p.AdjustEndpoints([]*endpoint.Endpoint{endpoint.NewEndpoint("App.Ext.Test.", "A", "192.0.2.1")}); err != nil || len(adj) != 1 || adj[0].DNSName != "app.ext.test" {
		t.Errorf("AdjustEndpoints: %v, %v", adj, err)
	}

	// Update: the RRset as read becomes two addresses.
	newApp := endpoint.NewEndpointWithTTL("app.ext.test", "A", 300, "192.0.2.11", "192.0.2.12")
	if err := p.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{app}, UpdateNew: []*endpoint.Endpoint{newApp}}); err != nil {
		t.Fatal(err)
	}
	if got := ask(t, ns, "app.ext.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.11", "192.0.2.12"}) {
		t.Errorf("app A after update: %v", got)
	}

	// Someone else changes the record meanwhile; external-dns's update,
	// built from its earlier read, must fail and change nothing, not even
	// the create that came with it.
	if _, err := c.Batch(ctx, "ext.test", []client.Change{{Op: client.OpReplace, Name: "app", Type: "A", Values: []string{"192.0.2.99"}}}); err != nil {
		t.Fatal(err)
	}
	stale := plan.Changes{
		UpdateOld: []*endpoint.Endpoint{newApp},
		UpdateNew: []*endpoint.Endpoint{endpoint.NewEndpointWithTTL("app.ext.test", "A", 300, "192.0.2.20")},
		Create:    []*endpoint.Endpoint{endpoint.NewEndpoint("other.ext.test", "A", "192.0.2.30")},
	}
	if err := p.ApplyChanges(ctx, &stale); err == nil {
		t.Fatal("an update whose updateOld no longer matches succeeded")
	}
	if got := ask(t, ns, "app.ext.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.99"}) {
		t.Errorf("app A after the stale update: %v, want the other writer's 192.0.2.99", got)
	}
	if got := ask(t, ns, "other.ext.test", dns.TypeA); len(got) != 0 {
		t.Errorf("the create that came with the stale update was applied: %v", got)
	}
	// A create of an RRset that exists fails too.
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewEndpoint("www.ext.test", "A", "192.0.2.81")}}); err == nil {
		t.Error("creating an existing RRset succeeded")
	}
	// A name outside the managed zones is refused, and nothing changes.
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewEndpoint("fine.ext.test", "A", "192.0.2.40"),
		endpoint.NewEndpoint("x.other.test", "A", "192.0.2.41"),
	}}); err == nil {
		t.Error("a change outside the managed zones succeeded")
	}
	if got := append(ask(t, ns, "fine.ext.test", dns.TypeA), ask(t, ns, "x.other.test", dns.TypeA)...); len(got) != 0 {
		t.Errorf("records of a refused change were applied: %v", got)
	}

	// Delete what external-dns owns, as it reads it now.
	eps = records(t, p)
	del := []*endpoint.Endpoint{find(eps, "app.ext.test", "A"), find(eps, "a-app.ext.test", "TXT"), find(eps, "deep.sub.ext.test", "CNAME")}
	if slices.Contains(del, nil) {
		t.Fatalf("records to delete not listed: %v", eps)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Delete: del}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name string
		typ  uint16
	}{{"app.ext.test", dns.TypeA}, {"a-app.ext.test", dns.TypeTXT}, {"deep.sub.ext.test", dns.TypeCNAME}} {
		if got := ask(t, ns, q.name, q.typ); len(got) != 0 {
			t.Errorf("%s still served after delete: %v", q.name, got)
		}
	}
	if got := ask(t, ns, "www.ext.test", dns.TypeA); !slices.Equal(got, []string{"192.0.2.80"}) {
		t.Errorf("www.ext.test A changed: %v", got)
	}
}
