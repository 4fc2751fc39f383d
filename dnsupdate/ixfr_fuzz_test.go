package dnsupdate

import (
	"testing"

	"github.com/miekg/dns"
)

// FuzzParseIXFR feeds arbitrary DNS messages as an IXFR answer: parseIXFR
// never panics, and what it accepts is well formed (steps with records
// only between their SOAs, or a full zone starting with its SOA).
func FuzzParseIXFR(f *testing.F) {
	m := new(dns.Msg)
	soa := func(n uint32) dns.RR {
		return &dns.SOA{Hdr: dns.RR_Header{Name: "z.", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300}, Ns: "ns.z.", Mbox: "h.z.", Serial: n}
	}
	a, _ := dns.NewRR("a.z. 300 IN A 192.0.2.1")
	m.Answer = []dns.RR{soa(7), soa(5), a, soa(6), soa(6), soa(7), a, soa(7)}
	b, _ := m.Pack()
	f.Add(b)
	m.Answer = []dns.RR{soa(7), a, soa(7)}
	b, _ = m.Pack()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var in dns.Msg
		if in.Unpack(data) != nil {
			return
		}
		deltas, full, err := parseIXFR("z", in.Answer)
		if err != nil {
			return
		}
		if full != nil {
			if _, ok := full[0].(*dns.SOA); !ok {
				t.Fatalf("full zone without its SOA first: %v", full)
			}
		}
		for _, d := range deltas {
			for _, rr := range append(d.Added, d.Deleted...) {
				if _, ok := rr.(*dns.SOA); ok {
					t.Fatalf("a step lists an SOA: %+v", d)
				}
			}
		}
	})
}
