package powerdns

import (
	"strings"
	"testing"
)

// TestCreateRequestChecks: the rrsets of a create are held to the rules
// of a PATCH (PowerDNS's checkRRSet), with its words.
func TestCreateRequestChecks(t *testing.T) {
	for _, c := range []struct {
		sets []RRset
		want string
	}{
		{[]RRset{{Name: "c.test.", Type: "MX", TTL: u32(60), Records: []Record{{Content: "10 mail@mx.example.org."}}}}, "RRset c.test. IN MX: non-hostname content mail@mx.example.org."},
		{[]RRset{{Name: "c.test.", Type: "DS", TTL: u32(60), Records: []Record{{Content: "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"}}}}, "RRset c.test. IN DS: is not allowed at apex"},
		{[]RRset{{Name: "sub.c.test.", Type: "DNSKEY", TTL: u32(60), Records: []Record{{Content: "257 3 13 AAAA"}}}}, "RRset sub.c.test. IN DNSKEY: is only allowed at apex"},
		{[]RRset{{Name: "www.c.test.", Type: "CNAME", TTL: u32(60), Records: []Record{{Content: "a.example."}, {Content: "b.example."}}}}, "RRset www.c.test. IN CNAME: only one such record allowed"},
		{[]RRset{{Name: "www.c.test.", Type: "A", TTL: u32(60), Records: []Record{{Content: "192.0.2.1"}, {Content: "192.0.2.1"}}}}, `RRset www.c.test. IN A: duplicate record with content "192.0.2.1"`},
		{[]RRset{{Name: "c.test.", Type: "CNAME", TTL: u32(60), Records: []Record{{Content: "www.example.org."}}}}, "RRset c.test. IN CNAME: conflicts with existing NS RRset of the same name"},
		{[]RRset{{Name: "w.c.test.", Type: "TXT", TTL: u32(60), Records: []Record{{Content: `"x"`}}}, {Name: "w.c.test.", Type: "CNAME", TTL: u32(60), Records: []Record{{Content: "www.example.org."}}}}, "RRset w.c.test. IN TXT: conflicts with existing CNAME RRset of the same name"},
		{[]RRset{{Name: "c.test.", Type: "SOA", TTL: u32(60), Records: []Record{{Content: "ns1.example.org. h.example.org. 1 2 3 4 5"}}}, {Name: "c.test.", Type: "CNAME", TTL: u32(60), Records: []Record{{Content: "www.example.org."}}}}, "RRset c.test. IN CNAME: conflicts with existing NS RRset of the same name"},
		{[]RRset{{Name: "t.c.test.", Type: "HINFO", TTL: u32(60), Records: []Record{{Content: `"cpu\12" "os"`}}}}, `Record t.c.test./HINFO '"cpu\12" "os"': Not in expected format (parsed as '"cpu12" "os"'): the content has the incomplete escape \12`},
		{[]RRset{{Name: "t.c.test.", Type: "TXT", TTL: u32(60), Records: []Record{{Content: `"a\1"`, Disabled: true}}}}, `Record t.c.test./TXT '"a\1"': Not in expected format (parsed as '"a1"')`},
	} {
		_, _, err := CreateRequest(&ZoneRequest{Name: "c.test.", Kind: "Native", Nameservers: []string{"ns1.example.com."}, RRsets: c.sets})
		if _, ok := err.(*InputError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want %q", c.sets[0].Name, c.sets[0].Type, err, c.want)
		}
	}
	zone := "ns1.example.com."
	for _, c := range []struct {
		req  ZoneRequest
		want []string
	}{
		{ZoneRequest{Name: "test..c.test.", Kind: "Native", Nameservers: []string{"ns1.example.com."}}, []string{"Unable to parse Zone Name", "Unable to parse DNS Name"}},
		{ZoneRequest{Name: "c.test.", Kind: "Consumer", Nameservers: []string{"127.0.0.1"}}, []string{"Nameservers MUST NOT be given for Consumer zones"}},
		{ZoneRequest{Name: "c.test.", Kind: "Consumer", RRsets: []RRset{{Name: "c.test.", Type: "SOA"}}}, []string{"Zone data MUST NOT be given for Consumer zones"}},
		{ZoneRequest{Name: "c.test.", Kind: "consumer", Zone: &zone}, []string{"Zone data MUST NOT be given for Consumer zones"}},
	} {
		_, _, err := CreateRequest(&c.req)
		for _, w := range c.want {
			if _, ok := err.(*InputError); !ok || !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: err = %v, want %q", c.req, err, w)
			}
		}
	}
}
