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
	if u.cache.seeds.bytes != 0 {
		t.Errorf("%d seed bytes counted after the seed went", u.cache.seeds.bytes)
	}

	// The zone as an IXFR sent it whole replaces the seed.
	u.Seed("s.test", 7, []byte(file))
	soa, _ := dns.NewRR("s.test. 3600 IN SOA ns1.s.test. admin.s.test. 8 3600 600 604800 86400")
	a, _ := dns.NewRR("b.s.test. 60 IN A 192.0.2.3")
	u.Transferred("s.test", []dns.RR{soa, a})
	if u.Cached("s.test", 7) != nil || u.cache.seeds.bytes != 0 {
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
	// Files unlike each other (alike, they share their text: below).
	unlike := func(i int) []byte { // seedZoneMax-5 bytes
		return append([]byte(fmt.Sprintf("; %08d\n", i)), bytes.Repeat([]byte{';'}, seedZoneMax-16)...)
	}
	n := 0
	for i := 0; u.Seed(fmt.Sprintf("z%d.test", i), 1, unlike(i)); i++ {
		n++
	}
	if want := seedTotalMax / (seedZoneMax - 5 + seedRefBytes + seedTextBytes); n != want {
		t.Errorf("%d seeds of %d bytes kept, want %d", n, seedZoneMax, want)
	}
	u.Forget("z0.test")
	if !u.Seed("again.test", 1, unlike(1<<20)) {
		t.Error("Forget did not give back a seed's bytes")
	}
}

// createdFile is the master file the zone service writes for a zone
// created as BenchmarkScale creates them (zonemodel's RenderFile).
func createdFile(zone string, serial uint32) []byte {
	return []byte(fmt.Sprintf("; zone %[1]s, written by zoneapi\n$ORIGIN %[1]s.\n$TTL 3600\n"+
		"%[1]s.\t3600\tIN\tSOA\tns1.%[1]s. hostmaster.%[1]s. %[2]d 3600 600 604800 86400\n"+
		"%[1]s.\t3600\tIN\tNS\tns1.%[1]s.\n"+
		"ns1.%[1]s.\t3600\tIN\tA\t192.0.2.53\n", zone, serial))
}

// TestSeedsOfZonesCreatedAlike: the seeds of 200,000 zones created with
// the same settings are all kept within seedTotalMax (their files share
// one text: before, each kept its file, and the bound held some 120,000
// of them: the later zones' first whole-zone difference had to read the
// zone's file), and each reads back as its own file; a file that holds
// a mark already, and a zone whose name is inside other names of its
// file, read back as they were.
func TestSeedsOfZonesCreatedAlike(t *testing.T) {
	u := NewUpdater(nil)
	const zones = 200_000
	for i := range zones {
		if !u.Seed(fmt.Sprintf("zone%d.example", i), 2026112701, createdFile(fmt.Sprintf("zone%d.example", i), 2026112701)) {
			t.Fatalf("the seed of zone %d of %d not kept", i, zones)
		}
	}
	check := func(zone string, serial uint32, file []byte) {
		t.Helper()
		s := u.Cached(zone, serial)
		if s == nil {
			t.Fatalf("%s: no content at the seed's serial", zone)
		}
		want := parseSeed(zone, file)
		if len(want) == 0 || len(s.RRs) != len(want) {
			t.Fatalf("%s: %d records read back, want %d", zone, len(s.RRs), len(want))
		}
		for i := range want {
			if !dns.IsDuplicate(s.RRs[i], want[i]) || s.RRs[i].Header().Ttl != want[i].Header().Ttl {
				t.Errorf("%s: record %d read back as %v, want %v", zone, i, s.RRs[i], want[i])
			}
		}
	}
	for _, i := range []int{0, 1, 12345, zones - 1} {
		zone := fmt.Sprintf("zone%d.example", i)
		check(zone, 2026112701, createdFile(zone, 2026112701))
	}
	odd := []struct {
		zone   string
		serial uint32
		file   []byte
	}{
		{"example", 7, createdFile("example", 7)},                                       // "example" in "ns1.example." and the comment
		{"1.example", 1, createdFile("1.example", 1)},                                   // the serial in the name
		{"mark.example", 3, append(createdFile("mark.example", 3), "; \x00 \x01\n"...)}, // holds the marks: kept as is
		{"other.example", 2026112701, createdFile("zone5.example", 2026112701)},         // another zone's file
		{"zone6.example", 2026112702, createdFile("zone6.example", 2026112702)},         // re-seeded at another serial
	}
	for _, o := range odd {
		if !u.Seed(o.zone, o.serial, o.file) {
			t.Fatalf("%s: not kept", o.zone)
		}
	}
	for _, o := range odd {
		check(o.zone, o.serial, o.file)
	}
	if len(u.cache.seeds.texts) > 6 {
		t.Errorf("%d texts kept for %d seeds", len(u.cache.seeds.texts), len(u.cache.seeds.byZone))
	}
	for i := range zones {
		u.Forget(fmt.Sprintf("zone%d.example", i))
	}
	for _, o := range odd {
		u.Forget(o.zone)
	}
	if u.cache.seeds.bytes != 0 || len(u.cache.seeds.texts) != 0 {
		t.Errorf("%d bytes, %d texts left once every zone is forgotten", u.cache.seeds.bytes, len(u.cache.seeds.texts))
	}
}
