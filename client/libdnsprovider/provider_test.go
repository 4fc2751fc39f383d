package libdnsprovider

import (
	"strings"
	"testing"
	"time"

	"github.com/libdns/libdns"

	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"
)

// txtRoundTrip sends s as the provider does and reads it back as the
// provider does, through miekg/dns's master-file parser (as the API
// parses values).
func txtRoundTrip(t *testing.T, s string) string {
	t.Helper()
	r, err := fromValue("x.example.com.", "TXT", 300, txtdata.Quote(s), "example.com.")
	if err != nil {
		t.Fatal(err)
	}
	return r.RR().Data
}

func TestTXTRoundTrip(t *testing.T) {
	for _, s := range []string{
		"", "hello", `say "hi"`, `back\slash`, "tab\there", "\x00\xff", "ünïcode",
		strings.Repeat("a", 255), strings.Repeat("b", 256), strings.Repeat(`\"`, 300),
		"v=spf1 mx -all", `\# 3 abcdef`,
	} {
		if got := txtRoundTrip(t, s); got != s {
			t.Errorf("%q came back as %q (sent %s)", s, got, txtdata.Quote(s))
		}
	}
}

func FuzzTXTRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "\\000", strings.Repeat("z", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		if got := txtRoundTrip(t, s); got != s {
			t.Errorf("%q came back as %q (sent %s)", s, got, txtdata.Quote(s))
		}
	})
}

func TestFromValueTyped(t *testing.T) {
	for _, tc := range []struct {
		name, typ, value string
		want             libdns.Record
	}{
		{"www.example.com.", "A", "192.0.2.1", nil},
		{"example.com.", "MX", "10 mail.example.com.", libdns.MX{Name: "@", TTL: 300 * time.Second, Preference: 10, Target: "mail.example.com."}},
		{"_sip._tcp.example.com.", "SRV", "1 2 5060 sip.example.com.", libdns.SRV{Service: "sip", Transport: "tcp", Name: "@", TTL: 300 * time.Second, Priority: 1, Weight: 2, Port: 5060, Target: "sip.example.com."}},
		{"c.example.com.", "CNAME", "target.example.net.", libdns.CNAME{Name: "c", TTL: 300 * time.Second, Target: "target.example.net."}},
	} {
		r, err := fromValue(tc.name, tc.typ, 300, tc.value, "example.com.")
		if err != nil {
			t.Fatal(err)
		}
		if tc.want != nil && r != tc.want {
			t.Errorf("%s %s: %#v, want %#v", tc.name, tc.typ, r, tc.want)
		}
		if tc.want == nil {
			if _, ok := r.(libdns.Address); !ok {
				t.Errorf("%s %s: %#v, want an Address", tc.name, tc.typ, r)
			}
		}
	}
	r, err := fromValue("svc.example.com.", "HTTPS", 300, `1 . alpn="h2,h3" port=443`, "example.com.")
	if err != nil {
		t.Fatal(err)
	}
	sb, ok := r.(libdns.ServiceBinding)
	if !ok || sb.Scheme != "https" || len(sb.Params["alpn"]) != 2 || sb.Params["port"][0] != "443" {
		t.Errorf("HTTPS: %#v", r)
	}
}

func TestMatches(t *testing.T) {
	have := libdns.RR{Name: "a", TTL: 300 * time.Second, Type: "TXT", Data: "one"}
	for _, tc := range []struct {
		want libdns.RR
		ok   bool
	}{
		{libdns.RR{Name: "a"}, true},
		{libdns.RR{Name: "A.example.com."}, true},
		{libdns.RR{Name: "b"}, false},
		{libdns.RR{Name: "a", Type: "txt"}, true},
		{libdns.RR{Name: "a", Type: "A"}, false},
		{libdns.RR{Name: "a", TTL: 300 * time.Second}, true},
		{libdns.RR{Name: "a", TTL: 301 * time.Second}, false},
		{libdns.RR{Name: "a", Type: "TXT", Data: "one"}, true},
		{libdns.RR{Name: "a", Type: "TXT", Data: "two"}, false},
	} {
		if got := matches(tc.want, have, "example.com."); got != tc.ok {
			t.Errorf("matches(%+v) = %v", tc.want, got)
		}
	}
}
