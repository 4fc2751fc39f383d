package provider

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
)

// TestEndpointsOfRRsets: a zone's endpoints, read from its RRsets as the
// contract's Records gives them (master-file values): each target as
// external-dns writes it (host names without the final dot, an IPv4-mapped
// AAAA in dotted form, TXT as its bytes, the other types' data as it is),
// the SOA and the apex NS left out, in the RRsets' order. The endpoints
// are those the provider listed when it read the zone's raw records
// (checked, as a set, against that code before it went).
func TestEndpointsOfRRsets(t *testing.T) {
	text := `$ORIGIN example.com.
@ 300 IN SOA ns hostmaster 1 2 3 4 5
@ 300 IN NS ns
@ 300 IN MX 10 mail
ns 300 IN A 192.0.2.1
a 300 IN A 192.0.2.2
a 300 IN TXT "x\"y" "z\\w" "\009tab é" "` + strings.Repeat("q", 200) + `"
a 300 IN AAAA ::ffff:192.0.2.7
a 300 IN AAAA 2001:db8::1
b 60 IN CNAME a
c 60 IN CNAME other.example.
d 60 IN NS ns.other.
p 60 IN PTR host.example.net.
m 60 IN MX 0 .
s 60 IN SRV 1 2 3 t.example.com.
n 60 IN NAPTR 100 10 "S" "SIP+D2U" "!^.*$!sip:a@b!" _sip._udp.example.com.
caa 60 IN CAA 0 issue "letsencrypt.org"
caa 60 IN CAA 128 iodef "mailto:x@example.com"
e 60 IN TXT ""
f 60 IN TXT "heritage=external-dns,external-dns/owner=default"
weird\.name 60 IN A 192.0.2.9
a 300 IN A 192.0.2.3
`
	zp := dns.NewZoneParser(strings.NewReader(text), "example.com.", "")
	var rrs []dns.RR
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		rrs = append(rrs, rr)
	}
	if zp.Err() != nil {
		t.Fatal(zp.Err())
	}
	want := []string{
		`{"dnsName":"example.com","targets":["10 mail.example.com"],"recordType":"MX","recordTTL":300}`,
		`{"dnsName":"a.example.com","targets":["192.0.2.2","192.0.2.3"],"recordType":"A","recordTTL":300}`,
		`{"dnsName":"a.example.com","targets":["x\"yz\\w\ttab éqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"],"recordType":"TXT","recordTTL":300}`,
		`{"dnsName":"a.example.com","targets":["192.0.2.7","2001:db8::1"],"recordType":"AAAA","recordTTL":300}`,
		`{"dnsName":"b.example.com","targets":["a.example.com"],"recordType":"CNAME","recordTTL":60}`,
		`{"dnsName":"c.example.com","targets":["other.example"],"recordType":"CNAME","recordTTL":60}`,
		`{"dnsName":"caa.example.com","targets":["0 issue \"letsencrypt.org\"","128 iodef \"mailto:x@example.com\""],"recordType":"CAA","recordTTL":60}`,
		`{"dnsName":"d.example.com","targets":["ns.other"],"recordType":"NS","recordTTL":60}`,
		`{"dnsName":"e.example.com","targets":[""],"recordType":"TXT","recordTTL":60}`,
		`{"dnsName":"f.example.com","targets":["heritage=external-dns,external-dns/owner=default"],"recordType":"TXT","recordTTL":60}`,
		`{"dnsName":"m.example.com","targets":["0 "],"recordType":"MX","recordTTL":60}`,
		`{"dnsName":"n.example.com","targets":["100 10 \"S\" \"SIP+D2U\" \"!^.*$!sip:a@b!\" _sip._udp.example.com."],"recordType":"NAPTR","recordTTL":60}`,
		`{"dnsName":"ns.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":300}`,
		`{"dnsName":"p.example.com","targets":["host.example.net"],"recordType":"PTR","recordTTL":60}`,
		`{"dnsName":"s.example.com","targets":["1 2 3 t.example.com"],"recordType":"SRV","recordTTL":60}`,
		`{"dnsName":"weird\\.name.example.com","targets":["192.0.2.9"],"recordType":"A","recordTTL":60}`,
	}
	eps := Endpoints(dnsupdate.RRsetsOf("example.com", rrs), "example.com")
	for i, ep := range eps {
		b, err := json.Marshal(ep)
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			t.Errorf("endpoint %d: %s, not wanted", i, b)
		} else if string(b) != want[i] {
			t.Errorf("endpoint %d:\n got %s\nwant %s", i, b, want[i])
		}
	}
	if len(eps) != len(want) {
		t.Errorf("%d endpoints, want %d", len(eps), len(want))
	}
}
