package integration

import (
	"fmt"
	"net"
	"sort"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// BenchmarkNamedReplaceForms measures, on one named, what the UPDATE
// forms a one-RRset TXT change can take cost named: sent raw over a
// kept-alive TCP connection signed with named's key, unpinned (named sets
// the serial), one message per change, in alternating slices, each form
// in a zone of its own. It prints named's CPU time per message and the
// messages per second of each:
//
//   - replace: delete the RRset, add the record (what a PATCH's REPLACE
//     sends), at one of 50 names;
//   - remove+add: remove the one record the RRset holds (its data), add
//     the new one, at one of 50 names;
//   - add: a record at a new name (what the REST API's record add sends);
//   - replace, large zone: replace at one of 50 names of a zone holding
//     5,000 other records (named's journal is bounded by twice the zone's
//     size, so a small zone's journal is trimmed more often);
//   - zone_api's PATCH message and zone_api's add message: the replace and
//     the add as zone_api sends them (pinned to the SOA, which they set,
//     and "no CNAME at the owner").
func BenchmarkNamedReplaceForms(b *testing.B) {
	ns := startNamed(b)
	c := startCaddy(b, ns, caddyOpts{handle: "/api*", extra: "powerdns"})
	api := newPDNSTarget("zone_api", c.Base, testToken)
	type form struct {
		name, zone string
		pinned     bool // as zone_api sends it: the SOA pinned and set, "no CNAME" at the owner
		soa        *dns.SOA
		conn       net.Conn
		last       map[string]string
		body       func(f *form, i int) []dns.RR
		w          window2
	}
	txt := func(owner, v string) *dns.TXT {
		return &dns.TXT{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{v}}
	}
	replace := func(f *form, i int) []dns.RR {
		owner := fmt.Sprintf("t%d.%s.", i%50, f.zone)
		return []dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeTXT, Class: dns.ClassANY}}, txt(owner, fmt.Sprintf("v%d", i))}
	}
	forms := []*form{
		{name: "replace", zone: "rf-replace.test", body: replace},
		{name: "remove+add", zone: "rf-remove.test", body: func(f *form, i int) []dns.RR {
			owner := fmt.Sprintf("t%d.%s.", i%50, f.zone)
			v := fmt.Sprintf("v%d", i)
			out := []dns.RR{}
			if old, ok := f.last[owner]; ok {
				rm := txt(owner, old)
				rm.Hdr.Class, rm.Hdr.Ttl = dns.ClassNONE, 0
				out = append(out, rm)
			}
			f.last[owner] = v
			return append(out, txt(owner, v))
		}},
		{name: "add", zone: "rf-add.test", body: func(f *form, i int) []dns.RR {
			return []dns.RR{txt(fmt.Sprintf("a%06d.%s.", i, f.zone), fmt.Sprintf("v%d", i))}
		}},
		{name: "replace, large zone", zone: "rf-large.test", body: replace},
		{name: "zone_api's PATCH message", zone: "rf-patchmsg.test", pinned: true, body: replace},
		{name: "zone_api's add message", zone: "rf-addmsg.test", pinned: true, body: func(f *form, i int) []dns.RR {
			return []dns.RR{txt(fmt.Sprintf("a%06d.%s.", i, f.zone), fmt.Sprintf("v%d", i))}
		}},
	}
	tsig := map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}
	send := func(f *form, body []dns.RR) error {
		m := new(dns.Msg)
		m.SetUpdate(f.zone + ".")
		if f.pinned && f.soa != nil {
			m.Used([]dns.RR{dns.Copy(f.soa)})
			owner := body[len(body)-1].Header().Name
			m.Answer = append(m.Answer, &dns.ANY{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeCNAME, Class: dns.ClassNONE}})
			next := dns.Copy(f.soa).(*dns.SOA)
			next.Serial++
			m.Ns = append(m.Ns, next)
		}
		m.Ns = append(m.Ns, body...)
		m.SetTsig(ns.TSIGKeyName+".", dns.HmacSHA256, 300, time.Now().Unix())
		_ = f.conn.SetDeadline(time.Now().Add(5 * time.Second))
		co := &dns.Conn{Conn: f.conn, TsigSecret: tsig}
		if err := co.WriteMsg(m); err != nil {
			return err
		}
		r, err := co.ReadMsg()
		if err != nil {
			return err
		}
		if r.Rcode != dns.RcodeSuccess {
			return fmt.Errorf("rcode %s", dns.RcodeToString[r.Rcode])
		}
		if f.pinned && f.soa != nil {
			f.soa.Serial++
		}
		return nil
	}
	for _, f := range forms {
		if r := api.req("POST", "/api/v1/servers/localhost/zones", `{"name":"`+f.zone+`.","kind":"Native","nameservers":["ns1.example.net."]}`); r != 201 {
			b.Fatalf("create %s: %d", f.zone, r)
		}
		conn, err := net.Dial("tcp", ns.DNSAddr)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		f.conn, f.last = conn, map[string]string{}
		if f.pinned {
			m := new(dns.Msg)
			m.SetQuestion(f.zone+".", dns.TypeSOA)
			r, err := dns.Exchange(m, ns.DNSAddr)
			if err != nil || len(r.Answer) == 0 {
				b.Fatalf("SOA of %s: %v", f.zone, err)
			}
			f.soa = r.Answer[0].(*dns.SOA)
		}
		// The 50 names hold a record before the rounds.
		for i := 0; i < 50; i++ {
			if err := send(f, f.body(f, -1000-i)); err != nil && f.name != "add" {
				b.Fatalf("%s: %v", f.name, err)
			}
		}
	}
	large := forms[3]
	for k := 0; k < 50; k++ {
		var body []dns.RR
		for j := 0; j < 100; j++ {
			body = append(body, txt(fmt.Sprintf("f%d-%d.%s.", k, j, large.zone), "filler"))
		}
		if err := send(large, body); err != nil {
			b.Fatalf("filling %s: %v", large.zone, err)
		}
	}
	slices, per := envInt("ZONEAPI_RF_SLICES", 10), 100
	next := 0
	for sl := 0; sl < slices; sl++ {
		order := forms
		if sl%2 == 1 {
			order = make([]*form, len(forms))
			for i, f := range forms {
				order[len(forms)-1-i] = f
			}
		}
		for _, f := range order {
			cpu0 := threadsCPU(ns.Pid())
			t0 := time.Now()
			for i := 0; i < per; i++ {
				t := time.Now()
				if err := send(f, f.body(f, next+i)); err != nil {
					b.Fatalf("%s: %v", f.name, err)
				}
				f.w.lat = append(f.w.lat, time.Since(t))
			}
			f.w.el += time.Since(t0)
			f.w.cpu += threadsCPU(ns.Pid()) - cpu0
			f.w.n += per
		}
		next += per
	}
	fmt.Printf("\nnamed, one TXT change per UPDATE, c=1, %d slices of %d in turn:\n\n| form | messages/s | p50 | named CPU per message |\n|---|---|---|---|\n", slices, per)
	for _, f := range forms {
		sort.Slice(f.w.lat, func(i, j int) bool { return f.w.lat[i] < f.w.lat[j] })
		fmt.Printf("| %s | %.0f | %s | %s |\n", f.name, float64(f.w.n)/f.w.el.Seconds(), ms(f.w.lat[len(f.w.lat)/2]), ms(f.w.cpu/time.Duration(f.w.n)))
	}
}

// window2 is what one form's messages took, summed over its slices.
type window2 struct {
	el, cpu time.Duration
	n       int
	lat     []time.Duration
}
