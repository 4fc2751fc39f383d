package dnsupdate

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func mustRR(t *testing.T, s string) dns.RR {
	t.Helper()
	rr, err := dns.NewRR(s)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

func TestParseIXFR(t *testing.T) {
	soa := func(n int) string { return "z. 300 IN SOA ns.z. h.z. " + strconv.Itoa(n) + " 1 1 1 1" }
	cases := []struct {
		name   string
		rrs    []string
		deltas int
		full   int
		err    bool
	}{
		{"up to date", []string{soa(5)}, 0, 0, false},
		{"two steps", []string{soa(7), soa(5), "a.z. 300 IN A 192.0.2.1", soa(6), "a.z. 300 IN A 192.0.2.2", soa(6), soa(7), "b.z. 300 IN TXT x", soa(7)}, 2, 0, false},
		{"full zone", []string{soa(7), "z. 300 IN NS ns.z.", "a.z. 300 IN A 192.0.2.2", soa(7)}, 0, 3, false},
		{"no SOA first", []string{"a.z. 300 IN A 192.0.2.2"}, 0, 0, true},
		{"bad end", []string{soa(7), soa(5), soa(6), "a.z. 300 IN A 192.0.2.2"}, 0, 0, true},
	}
	for _, c := range cases {
		var rrs []dns.RR
		for _, s := range c.rrs {
			rrs = append(rrs, mustRR(t, s))
		}
		d, full, err := parseIXFR("z", rrs)
		if (err != nil) != c.err || len(d) != c.deltas || len(full) != c.full {
			t.Errorf("%s: %d deltas, %d full, %v", c.name, len(d), len(full), err)
			continue
		}
		if c.name == "two steps" {
			if d[0].From != 5 || d[0].To != 6 || len(d[0].Deleted) != 1 || len(d[0].Added) != 1 || d[1].From != 6 || d[1].To != 7 || len(d[1].Deleted) != 0 || len(d[1].Added) != 1 {
				t.Errorf("two steps: %+v", d)
			}
		}
	}
}

// TestNotifyListener: a NOTIFY is answered (RFC 1996 section 4.7) and
// reported with its zone and serial; other messages are ignored.
func TestNotifyListener(t *testing.T) {
	got := make(chan [2]any, 2)
	l, err := ListenNotify("127.0.0.1:0", func(zone string, serial uint32, has bool) { got <- [2]any{zone, serial} })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	soa := mustRR(t, "Example.COM. 300 IN SOA ns.z. h.z. 42 1 1 1 1").(*dns.SOA)
	res := SendNotify(context.Background(), "Example.COM", soa, l.Addr())
	if !res.Acknowledged {
		t.Fatalf("not acknowledged: %+v", res)
	}
	select {
	case g := <-got:
		if g[0] != "example.com" || g[1] != uint32(42) {
			t.Fatalf("reported %v", g)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not reported")
	}
	q := new(dns.Msg)
	q.SetQuestion("example.com.", dns.TypeA)
	c := &dns.Client{Timeout: 300 * time.Millisecond}
	if _, _, err := c.Exchange(q, l.Addr()); err == nil {
		t.Fatal("a query was answered")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDiff(t *testing.T) {
	before := []dns.RR{mustRR(t, "z. 300 IN SOA ns.z. h.z. 1 1 1 1 1"), mustRR(t, "a.z. 300 IN A 192.0.2.1"), mustRR(t, "B.z. 300 IN TXT x")}
	after := []dns.RR{mustRR(t, "z. 300 IN SOA ns.z. h.z. 2 1 1 1 1"), mustRR(t, "b.z. 300 IN TXT x"), mustRR(t, "a.z. 60 IN A 192.0.2.1"), mustRR(t, "c.z. 300 IN A 192.0.2.3")}
	added, removed := Diff(before, after)
	if len(added) != 2 || len(removed) != 1 || added[0].Header().Ttl != 60 || removed[0].Header().Ttl != 300 {
		t.Fatalf("added %v removed %v", added, removed)
	}
}
