package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

func handler(zones ...string) *Provider {
	return &Provider{Zones: zones}
}

func TestZoneOfLongestSuffix(t *testing.T) {
	h := handler("example.com", "k8s.example.com")
	for _, tc := range []struct{ name, zone string }{
		{"app.example.com", "example.com"},
		{"App.K8s.Example.Com.", "k8s.example.com"},
		{"k8s.example.com", "k8s.example.com"},
		{"example.com", "example.com"},
		{"notexample.com", ""},
		{"example.org", ""},
		{"a..b", ""},
	} {
		got, err := h.ZoneOf(tc.name)
		if got != tc.zone || (tc.zone == "") != (err != nil) {
			t.Errorf("zoneOf(%q) = %q, %v; want %q", tc.name, got, err, tc.zone)
		}
	}
}

// The plan of a change set: prerequisites and updates per zone, in the
// configured zones' order; any bad endpoint refuses the whole set.
func TestPlan(t *testing.T) {
	h := handler("example.com", "k8s.example.com")
	ch := &Changes{
		Create:    []*Endpoint{{DNSName: "new.k8s.example.com", RecordType: "TXT", Targets: []string{`say "hi"`}, RecordTTL: 60}},
		UpdateOld: []*Endpoint{{DNSName: "app.example.com", RecordType: "A", Targets: []string{"192.0.2.1", "192.0.2.2"}, RecordTTL: 300}},
		UpdateNew: []*Endpoint{{DNSName: "app.example.com", RecordType: "A", Targets: []string{"192.0.2.3"}, RecordTTL: 300}},
		Delete:    []*Endpoint{{DNSName: "old.example.com", RecordType: "CNAME", Targets: []string{"app.example.com"}, RecordTTL: 300}},
	}
	plan, err := h.Plan(context.Background(), ch)
	if err != nil {
		t.Fatal(err)
	}
	type sections struct {
		*ZoneUpdate
		prereq, update []dns.RR
	}
	var p []*sections
	for _, zu := range plan {
		p = append(p, &sections{ZoneUpdate: zu})
	}
	if len(p) != 2 || p[0].Zone != "example.com" || p[1].Zone != "k8s.example.com" {
		t.Fatalf("plan zones: %+v", p)
	}
	str := func(rrs []dns.RR) string {
		var s []string
		for _, rr := range rrs {
			s = append(s, rr.String())
		}
		return strings.Join(s, " | ")
	}
	// The sections the zone service sends for the plan
	// (zoneservice.ConditionalUpdate, as ApplyIf builds them).
	for _, zu := range p {
		var err error
		if zu.prereq, zu.update, err = zoneservice.ConditionalUpdate(zu.Pre, zu.Changes); err != nil {
			t.Fatalf("%s: %v", zu.Zone, err)
		}
	}
	if got, want := str(p[0].prereq), "app.example.com.\t0\tIN\tA\t192.0.2.1 | app.example.com.\t0\tIN\tA\t192.0.2.2"; got != want {
		t.Errorf("example.com prerequisites:\n got %s\nwant %s", got, want)
	}
	if got, want := str(p[0].update), "app.example.com.\t0\tCLASS255\tA\t | app.example.com.\t300\tIN\tA\t192.0.2.3 | old.example.com.\t0\tNONE\tCNAME\tapp.example.com."; got != want {
		t.Errorf("example.com updates:\n got %s\nwant %s", got, want)
	}
	if got, want := str(p[1].prereq), "new.k8s.example.com.\t0\tNONE\tTXT\t"; got != want {
		t.Errorf("k8s prerequisites:\n got %q\nwant %q", got, want)
	}
	if got, want := str(p[1].update), `new.k8s.example.com.	60	IN	TXT	"say \"hi\""`; got != want {
		t.Errorf("k8s updates:\n got %s\nwant %s", got, want)
	}

	for _, bad := range []*Changes{
		{Create: []*Endpoint{{DNSName: "x.example.org", RecordType: "A", Targets: []string{"192.0.2.1"}, RecordTTL: 1}}},
		{Create: []*Endpoint{{DNSName: "x.example.com", RecordType: "SOA", Targets: []string{"a b 1 2 3 4 5"}, RecordTTL: 1}}},
		{Create: []*Endpoint{{DNSName: "x.example.com", RecordType: "A", Targets: []string{"not-an-ip"}, RecordTTL: 1}}},
		{Create: []*Endpoint{{DNSName: "x.example.com", RecordType: "A", Targets: []string{"192.0.2.1\nevil.example.com. 1 IN A 192.0.2.2"}, RecordTTL: 1}}},
		{Create: []*Endpoint{{DNSName: "x.example.com", RecordType: "A", RecordTTL: 1}}},
		{Create: []*Endpoint{{DNSName: "x.example.com", RecordType: "A", Targets: []string{"192.0.2.1"}, RecordTTL: 1, SetIdentifier: "blue"}}},
		{UpdateOld: []*Endpoint{{DNSName: "a.example.com", RecordType: "A", Targets: []string{"192.0.2.1"}}}},
		{UpdateOld: []*Endpoint{{DNSName: "a.example.com", RecordType: "A", Targets: []string{"192.0.2.1"}}},
			UpdateNew: []*Endpoint{{DNSName: "b.example.com", RecordType: "A", Targets: []string{"192.0.2.1"}, RecordTTL: 1}}},
		{Delete: []*Endpoint{nil}},
	} {
		if _, err := h.Plan(context.Background(), bad); err == nil {
			t.Errorf("plan accepted %+v", bad)
		}
	}
}

func FuzzToRRs(f *testing.F) {
	for _, s := range []string{"192.0.2.1", `"quoted" text`, "10 mail.example.com", "1 2 3 target.example.com", "x\ny", `\# 2 abcd`, "$INCLUDE /etc/passwd"} {
		f.Add("TXT", s)
		f.Add("A", s)
	}
	f.Fuzz(func(t *testing.T, typ, value string) {
		rs, err := toRecords(&Endpoint{DNSName: "x.example.com", RecordType: typ, Targets: []string{value}}, 60)
		if err != nil {
			return
		}
		if len(rs.values) != 1 || rs.owner != "x.example.com." || !supported[rs.typ] {
			t.Fatalf("%s %q gave %+v", typ, value, rs)
		}
		if rs.typ == "TXT" && !strings.HasPrefix(value, `"`) && target(rs.typ, rs.values[0]) != value {
			t.Fatalf("TXT %q read back as %q", value, target(rs.typ, rs.values[0]))
		}
	})
}

// TestCanonicalZone; the rcodes of a failed prerequisite are the zone
// service's (zoneservice's TestApplyIfPrerequisiteFailed).
func TestCanonicalZone(t *testing.T) {
	if z, ok := CanonicalZone("Example.COM."); !ok || z != "example.com" {
		t.Errorf("CanonicalZone = %q, %v", z, ok)
	}
	for _, bad := range []string{"", ".", "a..b"} {
		if _, ok := CanonicalZone(bad); ok {
			t.Errorf("CanonicalZone(%q) accepted", bad)
		}
	}
}
