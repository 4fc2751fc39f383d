package zoneservice

import (
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// TestRRsetsRecordText: a history RRset's records are their data in
// master-file form, for an address (written without its header twice)
// as for a type miekg/dns does not know (RFC 3597), whose header it
// writes another way.
func TestRRsetsRecordText(t *testing.T) {
	var rrs []dns.RR
	for _, s := range []string{
		"a.example.test. 60 IN A 192.0.2.1",
		"a.example.test. 60 IN A 192.0.2.2",
		"b.example.test. 60 IN AAAA 2001:db8::1",
		"c.example.test. 60 IN TXT \"x y\"",
		"d.example.test. 60 IN TYPE65534 \\# 3 abcdef",
	} {
		rr, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		rrs = append(rrs, rr)
	}
	got := RRsets(rrs)
	want := [][]string{{"192.0.2.1", "192.0.2.2"}, {"2001:db8::1"}, {`"x y"`}, {`\# 3 abcdef`}}
	if len(got) != len(want) {
		t.Fatalf("%d RRsets: %+v", len(got), got)
	}
	for i, w := range want {
		if !slices.Equal(got[i].Records, w) {
			t.Errorf("RRset %d (%s %s): %q, want %q", i, got[i].Name, got[i].Type, got[i].Records, w)
		}
	}
}
