package zoneservice

import (
	"sort"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
)

// TestUndoDeltas: the zone's content at a serial is the whole zone at a
// later serial with the IXFR's steps from that serial undone, in reverse
// (a record added then changed, one removed, a TTL changed); steps that
// do not chain from the serial to the whole zone's give nothing.
func TestUndoDeltas(t *testing.T) {
	rr := func(s string) dns.RR {
		r, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	soa := func(n uint32) dns.RR {
		r := rr("z.test. 3600 IN SOA ns.z.test. h.z.test. 1 3600 600 604800 60")
		r.(*dns.SOA).Serial = n
		return r
	}
	full := []dns.RR{soa(4), rr("a.z.test. 60 IN A 192.0.2.1"), rr("c.z.test. 120 IN A 192.0.2.3")}
	deltas := []dnsupdate.Delta{
		{From: 2, To: 3, Deleted: []dns.RR{soa(2), rr("b.z.test. 60 IN A 192.0.2.2")}, Added: []dns.RR{soa(3), rr("c.z.test. 60 IN A 192.0.2.3")}},
		{From: 3, To: 4, Deleted: []dns.RR{soa(3), rr("c.z.test. 60 IN A 192.0.2.3")}, Added: []dns.RR{soa(4), rr("C.z.test. 120 IN A 192.0.2.3")}},
	}
	at, ok := undoDeltas(full, deltas, 2)
	var got []string
	for _, r := range at {
		got = append(got, r.String())
	}
	sort.Strings(got)
	want := "a.z.test.\t60\tIN\tA\t192.0.2.1\nb.z.test.\t60\tIN\tA\t192.0.2.2"
	if !ok || strings.Join(got, "\n") != want {
		t.Errorf("undoDeltas = %v, %q; want the zone at serial 2:\n%s", ok, got, want)
	}
	for _, c := range []struct {
		name   string
		deltas []dnsupdate.Delta
		to     uint32
	}{
		{"no steps", nil, 2},
		{"from another serial", deltas, 1},
		{"not up to the whole zone's serial", deltas[:1], 2},
		{"steps that do not chain", []dnsupdate.Delta{deltas[0], {From: 5, To: 4}}, 2},
	} {
		if _, ok := undoDeltas(full, c.deltas, c.to); ok {
			t.Errorf("%s: undoDeltas ok", c.name)
		}
	}
}
