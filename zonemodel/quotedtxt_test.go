package zonemodel

import (
	"reflect"
	"strings"
	"testing"
	"time"

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

// FuzzRDataTextTXT: RDataText of a TXT or SPF record (its strings joined
// by the fuzzer's '|') is what miekg/dns writes after the header, whether
// or not the strings take the path without formatting.
func FuzzRDataTextTXT(f *testing.F) {
	for _, v := range []string{"v1", "a|b", "", "|", "a\"b", `a\b`, `a\034b`, "é", "a;b|(c)", "\x00", "~ !"} {
		f.Add(v, false)
		f.Add(v, true)
	}
	f.Fuzz(func(t *testing.T, joined string, spf bool) {
		var txt []string
		if joined != "" {
			txt = strings.Split(joined, "|")
		}
		hdr := dns.RR_Header{Name: "x.example.com.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 300}
		var rr dns.RR = &dns.TXT{Hdr: hdr, Txt: txt}
		if spf {
			hdr.Rrtype = dns.TypeSPF
			rr = &dns.SPF{Hdr: hdr, Txt: txt}
		}
		want := strings.TrimPrefix(rr.String(), rr.Header().String())
		if got := RDataText(rr); got != want {
			t.Fatalf("RDataText of %q: %q, miekg/dns writes %q", txt, got, want)
		}
	})
}

// BenchmarkRDataTextTXT: a one-string TXT record's data as the history
// entry of a PATCH writes it, by RDataText and by the generic form (the
// record's text less its header's, what RDataText did before), in the
// same loop; ratio-x is RDataText's time over the generic form's.
func BenchmarkRDataTextTXT(b *testing.B) {
	rr := &dns.TXT{Hdr: dns.RR_Header{Name: "t7.bench.test.", Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{"v=spf1 mx -all"}}
	var fast, generic time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			t := time.Now()
			if (i+j)%2 == 0 {
				_ = RDataText(rr)
				fast += time.Since(t)
			} else {
				_ = strings.TrimPrefix(rr.String(), rr.Header().String())
				generic += time.Since(t)
			}
		}
	}
	b.ReportMetric(float64(fast)/float64(generic), "ratio-x")
	b.ReportMetric(testing.AllocsPerRun(100, func() { _ = RDataText(rr) }), "allocs")
	b.ReportMetric(testing.AllocsPerRun(100, func() { _ = strings.TrimPrefix(rr.String(), rr.Header().String()) }), "generic-allocs")
}
