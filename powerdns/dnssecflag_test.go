package powerdns

import "testing"

// TestDNSSECFlagFollowsPolicy: a zone's dnssec flag is PowerDNS's, which
// follows the zone's keys as soon as they are set: true from the moment
// the zone has a signing dnssec-policy, though named says "secure: yes"
// only once its signatures are in (a GET right after PUT dnssec true said
// false, and CI's TestPowerDNSDNSSECOff failed on it under load), and
// false from the moment it is insecure; without a policy, named's own
// secure flag (keys kept by hand).
func TestDNSSECFlagFollowsPolicy(t *testing.T) {
	for _, c := range []struct {
		policy string
		secure bool
		want   bool
	}{
		{"default", false, true},
		{"default", true, true},
		{"custom", false, true},
		{"insecure", true, false},
		{"none", true, false},
		{"", true, true},
		{"", false, false},
	} {
		z := &ZoneInfo{Name: "example.com", Type: BINDPrimary, DNSSECPolicy: c.policy, Signed: c.secure}
		if got := zoneObject(z).DNSSEC; got != c.want {
			t.Errorf("policy %q, named secure %v: dnssec %v, want %v", c.policy, c.secure, got, c.want)
		}
	}
}
