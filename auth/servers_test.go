package auth

import (
	"errors"
	"strings"
	"testing"
)

// TestServerPolicy: naming primaries or also-notify servers needs the
// server action unless every address is inside the option's networks;
// the 403's message names the list, the addresses outside and the
// option; an unauthenticated request and an empty list pass.
func TestServerPolicy(t *testing.T) {
	grant := func(scope string) *Identity {
		s, err := ParseScope(scope)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.Compile()
		if err != nil {
			t.Fatal(err)
		}
		return &Identity{ID: "tok", Grant: g}
	}
	nets, err := NotifyPolicy.Parse([]string{"192.0.2.0/24", "2001:db8::1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		policy  ServerPolicy
		id      *Identity
		servers []string
		allowed Networks
		want    string // "" allowed, else a part of the 403's message
	}{
		{"unauthenticated", PrimariesPolicy, nil, []string{"198.51.100.1"}, nil, ""},
		{"empty list", PrimariesPolicy, grant("actions=zones"), nil, nil, ""},
		{"server action", PrimariesPolicy, grant("actions=zones,server"), []string{"198.51.100.1"}, nil, ""},
		{"zones only, no networks", PrimariesPolicy, grant("actions=zones"), []string{"198.51.100.1"}, nil,
			"tok may not name primaries: they make named transfer from the addresses given, which needs the server action (an identity limited neither to some zones nor to some records), as an import by AXFR does; this server allows no primaries to identities without it (allowed_primaries is empty)"},
		{"inside the networks", NotifyPolicy, grant("actions=zones"), []string{"192.0.2.7:5300", "[2001:db8::1]:53 key k"}, nets, ""},
		{"one outside", NotifyPolicy, grant("actions=zones"), []string{"192.0.2.7", "198.51.100.1:53"}, nets,
			"198.51.100.1 is outside the networks allowed_notify lists"},
		{"not an address", NotifyPolicy, grant("actions=zones"), []string{"host.example", "10.0.0.1"}, nets,
			"an entry that is not an address, 10.0.0.1 are outside"},
		{"limited to zones", NotifyPolicy, grant("actions=zones,server zones=a.test"), []string{"198.51.100.1"}, nil,
			"tok may not name a zone's also-notify servers: they make named send NOTIFY messages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.Check(tc.id, "", tc.servers, tc.allowed)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("denied: %v", err)
				}
				return
			}
			var d *Denied
			if !errors.As(err, &d) || !strings.Contains(d.Message, tc.want) {
				t.Fatalf("got %v, want a *Denied saying %q", err, tc.want)
			}
		})
	}
}

// TestServerPolicyParse: the options take addresses and CIDR networks
// (kept masked, IPv4-mapped addresses unmapped) and name themselves in
// their errors.
func TestServerPolicyParse(t *testing.T) {
	n, err := PrimariesPolicy.Parse([]string{"10.1.2.3/8", "::ffff:192.0.2.1"})
	if err != nil || len(n) != 2 || n[0].String() != "10.0.0.0/8" || n[1].String() != "192.0.2.1/32" {
		t.Fatalf("got %v, %v", n, err)
	}
	for _, tc := range []struct {
		policy ServerPolicy
		in     string
		want   string
	}{
		{PrimariesPolicy, "nope", `allowed_primaries: "nope" is not an IP address or a CIDR network`},
		{NotifyPolicy, "::ffff:10.0.0.0/104", `allowed_notify: "::ffff:10.0.0.0/104" is an IPv4-mapped network; write it as IPv4`},
	} {
		if _, err := tc.policy.Parse([]string{tc.in}); err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
