package zonemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

func FuzzNormalizeZoneName(f *testing.F) {
	for _, s := range []string{"example.com", "Example.COM.", "../etc", "a b", "-x", "a..b", ".", "", "_a.b-c", "0/25.2.0.192.in-addr.arpa", strings.Repeat("a.", 130)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeZoneName(s)
		if err != nil {
			return
		}
		if n == Root {
			// The root zone's canonical name, the one with a dot.
			if s != "." {
				t.Fatalf("NormalizeZoneName(%q) = %q", s, n)
			}
			return
		}
		if n == "" || len(n) > 253 || strings.HasSuffix(n, ".") || n != strings.ToLower(n) {
			t.Fatalf("NormalizeZoneName(%q) = %q", s, n)
		}
		// A '/' in a label is a name's (RFC 2317): the zone directory's
		// file names escape it (zonestore.FuzzFileBase checks that no
		// name leaves the directory), rndc quotes it.
		if strings.ContainsAny(n, "\\ \"';{}\x00\n") || strings.Contains(n, "..") {
			t.Fatalf("unsafe canonical name %q", n)
		}
		if _, ok := dns.IsDomainName(n); !ok {
			t.Fatalf("%q is not a domain name", n)
		}
		if n2, err := NormalizeZoneName(n); err != nil || n2 != n {
			t.Fatalf("not idempotent: %q -> %q, %v", n, n2, err)
		}
	})
}

func FuzzNormalize(f *testing.F) {
	seed, _ := json.Marshal(fullRequest())
	f.Add(seed)
	f.Add([]byte(`{"zoneName":".","zoneType":"primary","zoneConfig":{"ttl":60,"soa":{"primaryNs":"ns.e","adminEmail":"hostmaster"},"nameServers":["ns.e"],"nameServerIps":{"ns.e":"192.0.2.1"},"records":[{"name":"www.e","type":"A","value":"192.0.2.2"}]}}`))
	f.Add([]byte(`{"zoneName":"e.com","zoneType":"secondary","zoneConfig":{"primaries":["192.0.2.1:53"]}}`))
	f.Add([]byte(`{"zoneName":"e.com","zoneType":"primary","zoneConfig":{"ttl":60,"soa":{"primaryNs":"ns","adminEmail":"a@b.c"},"nameServers":["ns"],"nameServerIps":{"ns":"::1"},"records":[{"name":"x","type":"TXT","value":"\"a\" \"b\""}]}}`))
	f.Add([]byte(`{"zoneName":"e.com","zoneType":"primary","zoneConfig":{"ttl":60,"soa":{"primaryNs":"ns.","adminEmail":"a."},"nameServers":["ns."],"records":[{"name":"x","type":"MX","priority":1,"value":"( x )"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var req CreateZoneRequest
		if json.Unmarshal(data, &req) != nil {
			return
		}
		z, err := req.Normalize(testNow)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T is not *ValidationError", err)
			}
			return
		}
		if z.Type != TypePrimary {
			return
		}
		text, err := z.RenderFile()
		if err != nil {
			t.Fatalf("valid zone does not render: %v\nrequest %s", err, data)
		}
		zp := dns.NewZoneParser(bytes.NewReader(text), "", "")
		n := 0
		for _, ok := zp.Next(); ok; _, ok = zp.Next() {
			n++
		}
		if zp.Err() != nil || n != len(z.Records()) {
			t.Fatalf("rendered file parses to %d records (%v), want %d:\n%s", n, zp.Err(), len(z.Records()), text)
		}
		// Every line is a record, a comment or one of our two directives.
		for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
			if strings.HasPrefix(line, "$") && !strings.HasPrefix(line, "$ORIGIN "+Origin(z.Name)) && !strings.HasPrefix(line, "$TTL ") {
				t.Fatalf("unexpected directive line %q", line)
			}
		}
	})
}

// escapes matches master-file escapes left to right: a \DDD escape's
// digits (one to three, as many as follow) in group 1.
var escapes = regexp.MustCompile(`\\(?:([0-9]{1,3})|[^0-9]|$)`)

func FuzzParseRecord(f *testing.F) {
	for _, s := range [][4]string{
		{"www", "A", "192.0.2.1", ""}, {"@", "MX", "mail", "10"}, {"_s._tcp", "SRV", "5 5060 sip.example.com.", "1"},
		{"t", "TXT", "v=spf1 mx -all", ""}, {"t", "TXT", `"a" "b`, ""}, {"x", "TYPE65280", `\# 2 abcd`, ""},
		{"c", "CAA", `0 issue "ca.example"`, ""}, {"s", "SVCB", "1 . alpn=h2", ""}, {"n", "NS", "$INCLUDE /etc/passwd", ""},
		{"*.w", "CNAME", "www.example.com.", ""}, {"a.example.com.", "AAAA", "::1 ; x", ""}, {"a", "DS", "1 13 2 (ab", ""},
		{"t", "TXT", `"TEST\1" "TEST2"`, ""}, {"t", "TXT", `"valid\000record"`, ""}, {"c", "CNAME", `a\256.example.com.`, ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, name, typ, value, prio string) {
		var p *uint16
		if n, err := strconv.ParseUint(prio, 10, 16); err == nil {
			v := uint16(n)
			p = &v
		}
		rr, err := ParseRecord("example.com", 300, name, typ, value, nil, p, "", "value")
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not a client error: %v", err, err)
			}
			if ve != nil && len(ve.Problems) == 0 {
				t.Fatal("validation error without problems")
			}
			return
		}
		h := rr.Header()
		// named's master-file parser refuses an incomplete or
		// out-of-range \DDD escape; literal TXT text is not parsed.
		literal := (h.Rrtype == dns.TypeTXT || h.Rrtype == dns.TypeSPF) && !strings.HasPrefix(strings.TrimSpace(value), `"`)
		for _, m := range escapes.FindAllStringSubmatch(value, -1) {
			if d := m[1]; !literal && d != "" && (len(d) < 3 || d > "255") {
				t.Fatalf("%s %q accepted with the escape \\%s, which named refuses", typ, value, d)
			}
		}
		if !dns.IsSubDomain("example.com.", h.Name) || h.Class != dns.ClassINET || h.Ttl != 300 {
			t.Fatalf("bad header %v", h)
		}
		// The record packs (it can be sent) and its text parses back.
		buf := make([]byte, dns.Len(rr)+64)
		if _, err := dns.PackRR(rr, buf, 0, nil, false); err != nil {
			t.Fatalf("accepted record does not pack: %v (%v)", rr, err)
		}
		// Compared in wire form: dns.IsDuplicate compares hex digests as
		// strings, and the text form upper-cases what the parser
		// lower-cased (DS "0A").
		back, err := dns.NewRR(rr.String())
		if err != nil || back == nil {
			t.Fatalf("%q does not parse back: %v", rr.String(), err)
		}
		wire := make([]byte, dns.Len(back)+64)
		m, err := dns.PackRR(back, wire, 0, nil, false)
		if n, _ := dns.PackRR(rr, buf, 0, nil, false); err != nil || !bytes.Equal(wire[:m], buf[:n]) {
			t.Fatalf("%q parses back as another record: %v %v", rr.String(), back, err)
		}
	})
}

func FuzzNormalizeRecordName(f *testing.F) {
	for _, s := range []string{"@", "www", "www.example.com", "www.example.com.", "notexample.com", "notexample.com.", "*", "*.a", "a.*", "..", ".", "a b", "", "EXAMPLE.COM", strings.Repeat("a.", 130)} {
		f.Add(s, "example.com")
		f.Add(s, Root) // the root zone: every name is in it
	}
	f.Fuzz(func(t *testing.T, s, zone string) {
		if zone != Root {
			zone = "example.com"
		}
		n, err := NormalizeRecordName(s, zone)
		if err != nil {
			return
		}
		if !strings.HasSuffix(n, ".") || n != strings.ToLower(n) || !dns.IsSubDomain(Origin(zone), n) {
			t.Fatalf("NormalizeRecordName(%q, %q) = %q", s, zone, n)
		}
		if _, ok := dns.IsDomainName(n); !ok {
			t.Fatalf("%q is not a domain name", n)
		}
		if n2, err := NormalizeRecordName(n, zone); err != nil || n2 != n {
			t.Fatalf("not idempotent: %q -> %q, %v", n, n2, err)
		}
	})
}

// FuzzParseAddress: whatever the A/AAAA fast path accepts, miekg/dns's
// master-file parser accepts too, as the same record.
func FuzzParseAddress(f *testing.F) {
	for _, v := range []string{"192.0.2.1", "::1", "::ffff:192.0.2.1", "2001:db8::1", "01.2.3.4", "1.2.3", "fe80::1%eth0", "1.2.3.4:53"} {
		f.Add(v, false)
		f.Add(v, true)
	}
	f.Fuzz(func(t *testing.T, value string, v6 bool) {
		typ := uint16(dns.TypeA)
		if v6 {
			typ = dns.TypeAAAA
		}
		fast := parseAddress(dns.RR_Header{Name: "x.example.com.", Rrtype: typ, Class: dns.ClassINET, Ttl: 300}, value)
		if fast == nil {
			return
		}
		slow, err := dns.NewRR("x.example.com. 300 IN " + dns.TypeToString[typ] + " " + value)
		if err != nil || slow == nil || !dns.IsDuplicate(fast, slow) {
			t.Fatalf("fast path took %q as %v; the parser says %v, %v", value, fast, slow, err)
		}
	})
}

// FuzzCanonical: canonical's A and AAAA shortcut gives what the wire round
// trip gives, field for field, for any address bytes and header.
func FuzzCanonical(f *testing.F) {
	for _, s := range []struct {
		ip  []byte
		typ uint16
	}{
		{net.ParseIP("192.0.2.1"), dns.TypeA}, {net.ParseIP("192.0.2.1").To4(), dns.TypeA}, {net.ParseIP("2001:db8::1"), dns.TypeA},
		{net.ParseIP("2001:db8::1"), dns.TypeAAAA}, {net.ParseIP("192.0.2.1"), dns.TypeAAAA}, {[]byte{1, 2, 3}, dns.TypeA}, {nil, dns.TypeAAAA},
		{net.ParseIP("192.0.2.1").To4(), dns.TypeAAAA}, {net.ParseIP("192.0.2.1"), dns.TypeTXT},
	} {
		f.Add(s.ip, s.typ, false, uint32(300))
		f.Add(s.ip, s.typ, true, uint32(0))
	}
	f.Fuzz(func(t *testing.T, ip []byte, typ uint16, v6 bool, ttl uint32) {
		hdr := dns.RR_Header{Name: "x.example.com.", Rrtype: typ, Class: dns.ClassINET, Ttl: ttl}
		var rr dns.RR = &dns.A{Hdr: hdr, A: net.IP(ip)}
		if v6 {
			rr = &dns.AAAA{Hdr: hdr, AAAA: net.IP(ip)}
		}
		fast, ferr := canonical(rr)
		slow, serr := wireRoundTrip(rr)
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("canonical(%v) = %#v, %v; the wire gives %#v, %v", rr, fast, ferr, slow, serr)
		}
	})
}

// FuzzHasRelativeNames: for each type HasRelativeNames answers without
// parsing, parsing the data under two origins never finds a relative
// name either.
func FuzzHasRelativeNames(f *testing.F) {
	for _, v := range []string{"192.0.2.1", "::1", `"v=spf1 mx" "@"`, "@", "mail", `0 issue "ca.example"`, "1 1 abcdef", "3 1 1 abcdef",
		"12345 13 2 abcdef0123", "257 3 13 YWJj", `"x86" "linux"`, "www", "a.b", "10 mail", "10 mail.example.com."} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		for typ := range noNameTypes {
			for _, ty := range []string{typ, strings.ToLower(typ)} {
				if HasRelativeNames(ty, value) != parsedUnderTwoOrigins(ty, value) {
					t.Fatalf("%s %q: the shortcut says no relative name, the parse finds one", ty, value)
				}
			}
		}
	})
}
