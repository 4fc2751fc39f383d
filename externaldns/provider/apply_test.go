package provider

import (
	"context"
	"errors"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// failingZone is the contract whose conditional apply of one zone fails
// with err, within a *frontend.CallError as package frontend/adapter
// gives the zone service's errors; the others succeed.
type failingZone struct {
	frontend.ExternalDNSZones
	zone string
	err  error
	sent []string
}

func (f *failingZone) ApplyIf(_ context.Context, zone string, _ []zonemodel.Precondition, _ []zonemodel.Change) (uint32, uint32, error) {
	f.sent = append(f.sent, zone)
	if zone == f.zone {
		return 0, 0, &frontend.CallError{Zone: zone, Op: "batch", Err: f.err}
	}
	return 1, 2, nil
}

// TestApplyChangesErrors: ApplyChanges (the webhook's contract) applies
// the zones in the configured order, tells of each zone applied, stops at
// the first failure and names its zone (*zonemodel.ZoneError), keeps a
// failed prerequisite a *zonemodel.PrerequisiteError with named's rcode,
// and sends nothing when the plan fails.
func TestApplyChangesErrors(t *testing.T) {
	ch := &Changes{
		Create: []*Endpoint{
			{DNSName: "a.k8s.example.com", RecordType: "A", Targets: []string{"192.0.2.1"}, RecordTTL: 60},
			{DNSName: "a.example.com", RecordType: "A", Targets: []string{"192.0.2.2"}, RecordTTL: 60},
		},
	}
	for _, tc := range []struct {
		name   string
		err    error
		rcode  string
		wantCE bool
	}{
		// The zone service's error for named's answer YXRRSET
		// (zoneservice's TestApplyIfPrerequisiteFailed).
		{"prerequisite", &zonemodel.PrerequisiteError{Rcode: "YXRRSET", Err: &dnsupdate.ServerError{Op: "update", Zone: "k8s.example.com", Rcode: dns.RcodeYXRrset}}, "YXRRSET", false},
		{"conflict", &dnsupdate.ConflictError{Message: "CNAME and other data"}, "", true},
		{"other", errors.New("connection refused"), "", false},
	} {
		svc := &failingZone{zone: "k8s.example.com", err: tc.err}
		pr := &Provider{Zones: []string{"example.com", "k8s.example.com", "other.example"}, Service: svc}
		var applied []string
		err := pr.ApplyChanges(context.Background(), ch, func(zone string, n int) {
			applied = append(applied, zone)
			if n != 1 {
				t.Errorf("%s: zone %s applied with %d records, want 1", tc.name, zone, n)
			}
		})
		var ze *zonemodel.ZoneError
		if !errors.As(err, &ze) || ze.Zone != "k8s.example.com" || !errors.Is(err, tc.err) {
			t.Fatalf("%s: %v (%T), want a ZoneError of k8s.example.com wrapping %v", tc.name, err, err, tc.err)
		}
		if err.Error() != tc.err.Error() {
			t.Errorf("%s: error text %q, want the cause's %q", tc.name, err, tc.err)
		}
		var pe *zonemodel.PrerequisiteError
		if got := errors.As(err, &pe); got != (tc.rcode != "") || got && pe.Rcode != tc.rcode {
			t.Errorf("%s: PrerequisiteError %v %+v, want rcode %q", tc.name, got, pe, tc.rcode)
		}
		var ce *zonemodel.ConflictError
		if errors.As(err, &ce) != tc.wantCE {
			t.Errorf("%s: ConflictError %v, want %v", tc.name, !tc.wantCE, tc.wantCE)
		}
		if len(applied) != 1 || applied[0] != "example.com" || len(svc.sent) != 2 {
			t.Errorf("%s: applied %v, sent %v; want example.com applied, then k8s.example.com tried", tc.name, applied, svc.sent)
		}
	}

	svc := &failingZone{}
	pr := &Provider{Zones: []string{"example.com"}, Service: svc}
	bad := &Changes{Create: []*Endpoint{{DNSName: "a.example.org", RecordType: "A", Targets: []string{"192.0.2.1"}, RecordTTL: 60}}}
	err := pr.ApplyChanges(context.Background(), bad, func(string, int) { t.Error("applied a refused plan") })
	var ze *zonemodel.ZoneError
	if err == nil || errors.As(err, &ze) || len(svc.sent) != 0 {
		t.Errorf("a name outside the zones: %v (%T), sent %v; want the plan's error, nothing sent", err, err, svc.sent)
	}
}
