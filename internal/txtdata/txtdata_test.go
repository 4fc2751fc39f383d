package txtdata

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// roundTrip quotes s, parses it as a TXT record with miekg/dns, and joins
// the parsed strings back.
func roundTrip(t testing.TB, s string) string {
	rr, err := dns.NewRR("x. 60 IN TXT " + Quote(s))
	if err != nil {
		t.Fatalf("Quote(%q) = %s does not parse: %v", s, Quote(s), err)
	}
	txt := rr.(*dns.TXT).Txt
	for _, part := range txt {
		if n := len(Join([]string{part})); n > 255 {
			t.Fatalf("Quote(%q) made a string of %d bytes", s, n)
		}
	}
	return Join(txt)
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []string{
		"", "v=spf1 -all", `a "quoted" \ back`, "tab\tnewline\n\x00\xff", "é",
		strings.Repeat("x", 255), strings.Repeat("y", 256), strings.Repeat(`"`, 300),
	} {
		if got := roundTrip(t, s); got != s {
			t.Errorf("round trip of %q gave %q", s, got)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":       `""`,
		"a b":    `"a b"`,
		`"\`:     `"\"\\"`,
		"\x01é":  `"\001\195\169"`,
		"x;y(z)": `"x;y(z)"`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Quote(strings.Repeat("a", 256)); got != `"`+strings.Repeat("a", 255)+`" "a"` {
		t.Errorf("Quote of 256 bytes = %s", got)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("v=spf1 -all")
	f.Add("\\\"\x00" + strings.Repeat("z", 300))
	f.Fuzz(func(t *testing.T, s string) {
		if got := roundTrip(t, s); got != s {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
	})
}
