package zonemodel

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// The root zone (issue 28): its canonical name is Root, "."; names in it
// resolve, render and copy as in any other zone.

func TestRootZoneNames(t *testing.T) {
	if got, err := NormalizeZoneName("."); err != nil || got != Root {
		t.Fatalf(`NormalizeZoneName(".") = %q, %v; want "."`, got, err)
	}
	if got := Origin(Root); got != "." {
		t.Errorf("Origin(Root) = %q", got)
	}
	if got := Origin("example.com"); got != "example.com." {
		t.Errorf(`Origin("example.com") = %q`, got)
	}
	for in, want := range map[string]string{".": Root, "": "", "example.com.": "example.com", "example.com": "example.com"} {
		if got := ZoneOfOrigin(in); got != want {
			t.Errorf("ZoneOfOrigin(%q) = %q; want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"@": ".", ".": ".", "www": "www.", "www.": "www.", "WWW.Example.COM": "www.example.com.",
		"com": "com.", "*": "*.", "*.com.": "*.com.",
	} {
		if got, err := NormalizeRecordName(in, Root); err != nil || got != want {
			t.Errorf("NormalizeRecordName(%q, root) = %q, %v; want %q", in, got, err, want)
		}
	}
	// The root name stays outside every other zone.
	if got, err := NormalizeRecordName(".", "example.com"); err == nil {
		t.Errorf(`NormalizeRecordName(".", "example.com") = %q; want an error`, got)
	}
	if !InZone("www.example.com.", Root) || !InZone(".", Root) || InZone("example.com.", "www.example.com.") {
		t.Error("InZone")
	}
}

func TestRootZoneCreateRenders(t *testing.T) {
	req := &CreateZoneRequest{ZoneName: ".", ZoneType: "primary", ZoneConfig: &ZoneConfig{
		TTL:           3600,
		SOA:           &SOA{PrimaryNS: "a.root-servers.net.", AdminEmail: "hostmaster"},
		NameServers:   []string{"a.root-servers.net."},
		NameServerIPs: map[string]string{"a.root-servers.net.": "192.0.2.4"},
		Records:       []Record{{Name: "www.example", Type: "A", Value: "192.0.2.1"}, {Name: "@", Type: "TXT", Value: "root"}},
	}}
	z, err := req.Normalize(testNow)
	if err != nil {
		t.Fatal(err)
	}
	if z.Name != Root {
		t.Fatalf("name %q", z.Name)
	}
	text, err := z.RenderFile()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\n$ORIGIN .\n") {
		t.Fatalf("no $ORIGIN .:\n%s", text)
	}
	var owners []string
	zp := dns.NewZoneParser(strings.NewReader(string(text)), "", "")
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		owners = append(owners, rr.Header().Name+" "+dns.TypeToString[rr.Header().Rrtype])
	}
	if zp.Err() != nil {
		t.Fatal(zp.Err())
	}
	want := ". SOA|. NS|a.root-servers.net. A|www.example. A|. TXT"
	if got := strings.Join(owners, "|"); got != want {
		t.Errorf("records %s; want %s\n%s", got, want, text)
	}
	if soa := z.Records()[0].(*dns.SOA); soa.Mbox != "hostmaster." {
		t.Errorf("mailbox %q", soa.Mbox)
	}
	// RenderRecords writes owners below the root relative to ".".
	out, _, err := RenderRecords(Root, z.Records())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\nwww.example\t") || strings.Contains(string(out), "..") {
		t.Errorf("rendered:\n%s", out)
	}
	back, err := ParseZoneFile(Root, out, 100)
	if err != nil || len(back) != len(z.Records()) {
		t.Fatalf("parse back: %d records, %v\n%s", len(back), err, out)
	}
}

func TestRootZoneCopy(t *testing.T) {
	rr := func(s string) dns.RR {
		r, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	in := []dns.RR{rr(". 60 IN NS ns.example.com."), rr("www. 60 IN CNAME host.www."), rr("x.y. 60 IN MX 1 .")}
	got := CopyRecords(in, Root, "example.org")
	want := []string{"example.org.\t60\tIN\tNS\tns.example.com.example.org.", "www.example.org.\t60\tIN\tCNAME\thost.www.example.org.", "x.y.example.org.\t60\tIN\tMX\t1 example.org."}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("copy from root: %s; want %s", got[i], want[i])
		}
	}
	back := CopyRecords(got, "example.org", Root)
	for i := range in {
		if back[i].String() != in[i].String() {
			t.Errorf("copy to root: %s; want %s", back[i], in[i])
		}
	}
}
