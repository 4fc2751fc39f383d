package zonemodel

import (
	"net"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestRDataTextAddresses: the A and AAAA fast path writes what
// rr.String() writes after the header, for every form of address.
func TestRDataTextAddresses(t *testing.T) {
	h := func(t uint16) dns.RR_Header {
		return dns.RR_Header{Name: "a.example.", Rrtype: t, Class: dns.ClassINET, Ttl: 60}
	}
	rrs := []dns.RR{
		&dns.A{Hdr: h(dns.TypeA), A: net.ParseIP("192.0.2.1")},
		&dns.A{Hdr: h(dns.TypeA), A: net.ParseIP("192.0.2.1").To4()},
		&dns.A{Hdr: h(dns.TypeA)},
		&dns.A{Hdr: h(dns.TypeA), A: net.IP{1, 2, 3}},
		&dns.AAAA{Hdr: h(dns.TypeAAAA), AAAA: net.ParseIP("2001:db8::1")},
		&dns.AAAA{Hdr: h(dns.TypeAAAA), AAAA: net.ParseIP("::ffff:192.0.2.1")},
		&dns.AAAA{Hdr: h(dns.TypeAAAA), AAAA: net.ParseIP("::")},
		&dns.AAAA{Hdr: h(dns.TypeAAAA)},
	}
	for _, s := range []string{"b.example. 60 IN A 10.0.0.1", "c.example. 60 IN AAAA fe80::1", "d.example. 60 IN AAAA ::1.2.3.4"} {
		rr, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		rrs = append(rrs, rr)
	}
	for _, rr := range rrs {
		want := strings.TrimPrefix(rr.String(), rr.Header().String())
		if got := RDataText(rr); got != want {
			t.Errorf("%#v: %q, want %q", rr, got, want)
		}
	}
}
