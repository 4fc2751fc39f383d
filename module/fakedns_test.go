package module

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// fakeDNS is a fake of named's DNS port for handler tests: it serves the
// zones it holds (SOA and other records, AXFR), applies UPDATE messages
// without checking their prerequisites, and answers UPDATEs of the zones
// in refuse with REFUSED. Answers to signed messages are signed.
type fakeDNS struct {
	addr   string
	mu     sync.Mutex
	zones  map[string][]dns.RR // zone (no trailing dot) -> records, SOA first
	refuse map[string]bool
}

const fakeTSIGSecret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"

// newFakeDNS serves zones (master-file text by zone name) on a loopback
// TCP port until the test ends.
func newFakeDNS(t testing.TB, zones map[string]string, refuse ...string) *fakeDNS {
	t.Helper()
	f := &fakeDNS{zones: map[string][]dns.RR{}, refuse: map[string]bool{}}
	for _, z := range refuse {
		f.refuse[z] = true
	}
	for z, text := range zones {
		zp := dns.NewZoneParser(strings.NewReader(text), z+".", "")
		for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
			f.zones[z] = append(f.zones[z], rr)
		}
		if err := zp.Err(); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	srv := &dns.Server{Listener: ln, Handler: f, TsigSecret: map[string]string{"zoneapi-update.": fakeTSIGSecret},
		// The default accept function refuses UPDATE (NOTIMP).
		MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return f
}

func (f *fakeDNS) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	q := r.Question[0]
	zone := strings.TrimSuffix(strings.ToLower(q.Name), ".")
	f.mu.Lock()
	switch {
	case r.Opcode == dns.OpcodeUpdate && f.refuse[zone]:
		m.Rcode = dns.RcodeRefused
	case r.Opcode == dns.OpcodeUpdate:
		f.update(zone, r.Ns)
	case q.Qtype == dns.TypeAXFR:
		rrs := f.zones[zone]
		m.Answer = append(append([]dns.RR{}, rrs...), rrs[0])
	default:
		f.query(m, q)
	}
	f.mu.Unlock()
	if t := r.IsTsig(); t != nil {
		m.SetTsig(t.Hdr.Name, t.Algorithm, 300, time.Now().Unix())
	}
	_ = w.WriteMsg(m)
}

// query answers q from the zone that holds its name.
func (f *fakeDNS) query(m *dns.Msg, q dns.Question) {
	name := strings.ToLower(q.Name)
	for z, rrs := range f.zones {
		if name != z+"." && !strings.HasSuffix(name, "."+z+".") {
			continue
		}
		for _, rr := range rrs {
			h := rr.Header()
			if strings.EqualFold(h.Name, name) && (q.Qtype == dns.TypeANY || h.Rrtype == q.Qtype) {
				m.Answer = append(m.Answer, rr)
			}
		}
		if len(m.Answer) == 0 {
			m.Ns = []dns.RR{rrs[0]}
		}
		return
	}
	m.Rcode = dns.RcodeRefused
}

// update applies an UPDATE's changes (RFC 2136 §2.5) to zone.
func (f *fakeDNS) update(zone string, changes []dns.RR) {
	rrs := f.zones[zone]
	for _, c := range changes {
		h := c.Header()
		switch h.Class {
		case dns.ClassINET:
			if soa, ok := c.(*dns.SOA); ok {
				rrs[0] = soa
				continue
			}
			rrs = append(rrs, c)
		case dns.ClassNONE, dns.ClassANY:
			kept := rrs[:1]
			for _, rr := range rrs[1:] {
				same := strings.EqualFold(rr.Header().Name, h.Name) && (h.Rrtype == dns.TypeANY || rr.Header().Rrtype == h.Rrtype)
				if h.Class == dns.ClassNONE {
					cp := dns.Copy(c)
					cp.Header().Class, cp.Header().Ttl = dns.ClassINET, rr.Header().Ttl
					same = same && dns.IsDuplicate(rr, cp)
				}
				if !same {
					kept = append(kept, rr)
				}
			}
			rrs = kept
		}
	}
	f.zones[zone] = rrs
}
