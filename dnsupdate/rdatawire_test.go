package dnsupdate

import (
	"net"
	"testing"

	"github.com/miekg/dns"
)

// rdataWirePacked is rdataWire without its A shortcut: the data as PackRR
// writes it.
func rdataWirePacked(rr dns.RR) (string, bool) {
	buf := make([]byte, dns.Len(rr)+16)
	off, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		return "", false
	}
	var name [256]byte
	n, err := dns.PackDomainName(rr.Header().Name, name[:], 0, nil, false)
	if err != nil || n+10 > off {
		return "", false
	}
	return string(buf[n+10 : off]), true
}

// FuzzRDataWireAddress: the A shortcut gives what packing the record
// gives, for any address bytes and owner.
func FuzzRDataWireAddress(f *testing.F) {
	for _, s := range []struct {
		name string
		ip   []byte
	}{
		{"x.example.com.", net.ParseIP("192.0.2.1").To4()}, {"x.example.com.", net.ParseIP("192.0.2.1")}, {"x.example.com.", nil},
		{"x.example.com.", []byte{1, 2, 3}}, {"x..example.com.", []byte{1, 2, 3, 4}}, {"x.example.com", []byte{1, 2, 3, 4}},
		{"x.example.com.", net.ParseIP("2001:db8::1")},
	} {
		f.Add(s.name, s.ip)
	}
	f.Fuzz(func(t *testing.T, name string, ip []byte) {
		rr := &dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IP(ip)}
		got, gok := rdataWire(rr)
		want, wok := rdataWirePacked(rr)
		if got != want || gok != wok {
			t.Fatalf("rdataWire(%v) = %x, %v; packing gives %x, %v", rr, got, gok, want, wok)
		}
	})
}
