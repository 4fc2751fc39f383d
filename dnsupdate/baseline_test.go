package dnsupdate

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestSeedIsTheZoneAtItsSerial: a seed (the file of a zone created here)
// is the zone's content at its serial for Cached only, read as named
// loads it (one TTL per RRset, the SOA first); it goes once the zone's
// content at another serial is known or the zone moved on, and a seed
// over the bounds is not kept.
func TestSeedIsTheZoneAtItsSerial(t *testing.T) {
	u := NewUpdater(nil)
	file := "$ORIGIN s.test.\n$TTL 300\n" +
		"a 60 IN A 192.0.2.1\n" +
		"@ 3600 IN SOA ns1 admin 7 3600 600 604800 86400\n" +
		"@ IN NS ns1\n" +
		"a 120 IN A 192.0.2.2\n" // named gives it the RRset's TTL, 60
	if !u.Seed("s.test", 7, []byte(file)) {
		t.Fatal("a small seed was not kept")
	}
	if s := u.Cached("s.test", 6); s != nil {
		t.Fatalf("Cached at an earlier serial: %v", s.RRs)
	}
	s := u.Cached("s.test", 7)
	if s == nil {
		t.Fatal("no content at the seed's serial")
	}
	var got []string
	for _, rr := range s.RRs {
		got = append(got, strings.Join(strings.Fields(rr.String()), " "))
	}
	want := []string{ // the SOA first, the others in file order
		"s.test. 3600 IN SOA ns1.s.test. admin.s.test. 7 3600 600 604800 86400",
		"a.s.test. 60 IN A 192.0.2.1",
		"s.test. 300 IN NS ns1.s.test.",
		"a.s.test. 60 IN A 192.0.2.2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the seed read back:\n%s", strings.Join(got, "\n"))
	}
	if u.Cached("s.test", 8) != nil || u.Cached("s.test", 7) != nil {
		t.Error("the seed is kept once asked for a later serial")
	}
	if u.cache.seedBytes != 0 {
		t.Errorf("%d seed bytes counted after the seed went", u.cache.seedBytes)
	}

	// The zone as an IXFR sent it whole replaces the seed.
	u.Seed("s.test", 7, []byte(file))
	soa, _ := dns.NewRR("s.test. 3600 IN SOA ns1.s.test. admin.s.test. 8 3600 600 604800 86400")
	a, _ := dns.NewRR("b.s.test. 60 IN A 192.0.2.3")
	u.Transferred("s.test", []dns.RR{soa, a})
	if u.Cached("s.test", 7) != nil || u.cache.seedBytes != 0 {
		t.Error("the seed is kept once the zone at a later serial is known")
	}
	if s := u.Cached("s.test", 8); s == nil || len(s.RRs) != 2 {
		t.Errorf("the transferred zone: %v", s)
	}
	u.Transferred("s.test", []dns.RR{a}) // no SOA first: not taken
	soa9 := dns.Copy(soa).(*dns.SOA)
	soa9.Serial = 9
	huge := append([]dns.RR{soa9}, slices.Repeat([]dns.RR{a}, knownBaseMax)...) // too large: not taken
	u.Transferred("s.test", huge)
	if s := u.Cached("s.test", 8); s == nil || len(s.RRs) != 2 {
		t.Errorf("a transfer without its SOA, or one too large, replaced the zone: %v", s)
	}

	// Bounds: one zone's file, and all seeds together.
	if u.Seed("big.test", 1, make([]byte, seedZoneMax+1)) {
		t.Error("a seed over seedZoneMax was kept")
	}
	n := 0
	for i := 0; u.Seed(fmt.Sprintf("z%d.test", i), 1, bytes.Repeat([]byte{';'}, seedZoneMax)); i++ {
		n++
	}
	if n != seedTotalMax/seedZoneMax {
		t.Errorf("%d seeds of %d bytes kept, want %d", n, seedZoneMax, seedTotalMax/seedZoneMax)
	}
	u.Forget("z0.test")
	if !u.Seed("again.test", 1, bytes.Repeat([]byte{';'}, seedZoneMax)) {
		t.Error("Forget did not give back a seed's bytes")
	}
}
