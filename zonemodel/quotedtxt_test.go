package zonemodel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// FuzzParseQuotedTXT: whatever the quoted TXT/SPF fast path accepts,
// miekg/dns's master-file parser (parseRData, the path it saves) takes as
// the same record, field for field, and the record reads back as itself.
func FuzzParseQuotedTXT(f *testing.F) {
	for _, v := range []string{`"v1"`, `"v=spf1 mx -all"`, `"a" "b"`, `"a"  "b"`, `"a""b"`, `""`, `"a" ""`, `"a\"b"`, `"a\\b"`, `"a;b"`,
		`"(a)"`, `"a" b`, `a "b"`, `"a" `, ` "a"`, `"é"`, `"a`, `"` + strings.Repeat("x", 255) + `"`, `"` + strings.Repeat("x", 256) + `"`, `"$TTL"`, `"@"`} {
		f.Add(v, false)
		f.Add(v, true)
	}
	f.Fuzz(func(t *testing.T, value string, spf bool) {
		typ, typeName := uint16(dns.TypeTXT), "TXT"
		if spf {
			typ, typeName = dns.TypeSPF, "SPF"
		}
		hdr := dns.RR_Header{Name: "x.example.com.", Rrtype: typ, Class: dns.ClassINET, Ttl: 300}
		fast := parseQuotedTXT(hdr, value)
		if fast == nil {
			return
		}
		ve := &ValidationError{}
		slow := parseRData(hdr, typeName, nil, value, value, "example.com.", "f", ve)
		if slow == nil || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast path took %q as %#v; the parser says %#v, %v", value, fast, slow, ve)
		}
		if back, err := dns.NewRR(fast.String()); err != nil || back == nil || back.String() != fast.String() {
			t.Fatalf("%q as %v does not read back as itself: %v, %v", value, fast, back, err)
		}
	})
}

// TestParseQuotedTXTTakes: the forms a PATCH of TXT records sends are
// taken by the fast path (FuzzParseQuotedTXT checks what it takes).
func TestParseQuotedTXTTakes(t *testing.T) {
	hdr := dns.RR_Header{Name: "x.example.com.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 300}
	for v, want := range map[string][]string{`"v1"`: {"v1"}, `"v=spf1 mx -all"`: {"v=spf1 mx -all"}, `"a"  "b c"`: {"a", "b c"}} {
		rr, ok := parseQuotedTXT(hdr, v).(*dns.TXT)
		if !ok || !reflect.DeepEqual(rr.Txt, want) {
			t.Errorf("%s: %v, want the strings %q", v, rr, want)
		}
	}
}
