// Package dnstest runs a fake of named's DNS port on loopback, for unit
// tests of code that sends named RFC 2136 updates, zone transfers and
// NOTIFY messages, as rndc/rndctest fakes its control channel. It serves
// the zones it holds (queries, AXFR over TCP, and IXFR from the changes
// its UPDATEs made that set a new SOA), applies UPDATE messages
// without checking their prerequisites, answers the UPDATEs of a zone
// told to refuse with that zone's rcode, and acknowledges NOTIFY messages
// (over UDP, on the same port number), remembering them. Answers to
// signed messages are signed with TSIGKey.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TSIGKey and TSIGSecret are the key the server verifies and signs with.
const (
	TSIGKey    = "zoneapi-update."
	TSIGSecret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"
)

// Server is a fake named DNS port.
type Server struct {
	// Addr is its host:port (TCP and UDP).
	Addr string

	mu       sync.Mutex
	zones    map[string][]dns.RR // zone (no trailing dot) -> records, SOA first
	journal  map[string][]delta  // zone -> the changes UPDATEs made, oldest first
	refuse   map[string]int      // zone -> rcode of its UPDATEs
	notifies []string            // zones notified
	hook     func(kind, zone string)
}

// delta is one change of a zone's journal: the SOA before and after, and
// the records (SOA aside) it deleted and added.
type delta struct {
	from, to   *dns.SOA
	del, added []dns.RR
}

// SetHook makes the server call hook, outside its lock, with kind
// "UPDATE" once an UPDATE is applied and before it is answered, and with
// kind "IXFR" before an IXFR query is answered; nil removes it. A test
// uses it to order what concurrent clients see.
func (s *Server) SetHook(hook func(kind, zone string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = hook
}

// NewServer serves zones (master-file text by zone name, SOA first) on a
// loopback port until the test ends; the UPDATEs of the zones in refuse
// are answered REFUSED.
func NewServer(tb testing.TB, zones map[string]string, refuse ...string) *Server {
	tb.Helper()
	s := &Server{zones: map[string][]dns.RR{}, journal: map[string][]delta{}, refuse: map[string]int{}}
	for _, z := range refuse {
		s.refuse[z] = dns.RcodeRefused
	}
	for z, text := range zones {
		zp := dns.NewZoneParser(strings.NewReader(text), z+".", "")
		for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
			s.zones[z] = append(s.zones[z], rr)
		}
		if err := zp.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	ln, pc := ListenPair(tb)
	s.Addr = ln.Addr().String()
	accept := func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept } // the default refuses UPDATE and NOTIFY
	secrets := map[string]string{TSIGKey: TSIGSecret}
	tcp := &dns.Server{Listener: ln, Handler: s, TsigSecret: secrets, MsgAcceptFunc: accept}
	udp := &dns.Server{PacketConn: pc, Handler: s, TsigSecret: secrets, MsgAcceptFunc: accept}
	go func() { _ = tcp.ActivateAndServe() }()
	go func() { _ = udp.ActivateAndServe() }()
	tb.Cleanup(func() { _ = tcp.Shutdown(); _ = udp.Shutdown() })
	return s
}

// ListenPair listens on a loopback TCP port and on the UDP port of the
// same number, as a DNS server does; the test closes them (or the
// servers given them do).
func ListenPair(tb testing.TB) (net.Listener, net.PacketConn) {
	tb.Helper()
	var (
		ln  net.Listener
		pc  net.PacketConn
		err error
	)
	for range 10 { // a UDP port of the same number may be taken
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			tb.Fatal(err)
		}
		if pc, err = net.ListenPacket("udp", ln.Addr().String()); err == nil {
			return ln, pc
		}
		ln.Close()
	}
	tb.Fatal(err)
	return nil, nil
}

// Refuse makes the server answer the zone's UPDATEs with rcode
// (dns.RcodeSuccess: apply them again).
func (s *Server) Refuse(zone string, rcode int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rcode == dns.RcodeSuccess {
		delete(s.refuse, zone)
		return
	}
	s.refuse[zone] = rcode
}

// Notifies returns the zones of the NOTIFY messages received, in order.
func (s *Server) Notifies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notifies...)
}

// Change changes the zone as named does on its own (its key manager
// adding a zone's keys, a signing): the records are applied as an
// UPDATE's changes (a SOA replaces the zone's) and journaled.
func (s *Server) Change(zone string, rrs ...dns.RR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.update(zone, rrs)
}

// Records returns the zone's records, SOA first.
func (s *Server) Records(zone string) []dns.RR {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]dns.RR(nil), s.zones[zone]...)
}

// ServeDNS answers one message.
func (s *Server) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	q := r.Question[0]
	zone := strings.TrimSuffix(strings.ToLower(q.Name), ".")
	s.mu.Lock()
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && r.Opcode == dns.OpcodeQuery && q.Qtype == dns.TypeIXFR {
		hook("IXFR", zone)
	}
	s.mu.Lock()
	updated := false
	switch {
	case r.Opcode == dns.OpcodeNotify:
		s.notifies = append(s.notifies, zone)
	case r.Opcode == dns.OpcodeUpdate && s.refuse[zone] != 0:
		m.Rcode = s.refuse[zone]
	case r.Opcode == dns.OpcodeUpdate:
		s.update(zone, r.Ns)
		updated = true
	case q.Qtype == dns.TypeIXFR:
		s.ixfr(m, zone, r.Ns)
	case q.Qtype == dns.TypeAXFR:
		rrs := s.zones[zone]
		if len(rrs) == 0 {
			m.Rcode = dns.RcodeNotAuth
			break
		}
		m.Answer = append(append([]dns.RR{}, rrs...), rrs[0])
	default:
		s.query(m, q)
	}
	s.mu.Unlock()
	if hook != nil && updated {
		hook("UPDATE", zone)
	}
	if t := r.IsTsig(); t != nil {
		m.SetTsig(t.Hdr.Name, t.Algorithm, 300, time.Now().Unix())
	}
	_ = w.WriteMsg(m)
}

// query answers q from the zone that holds its name.
func (s *Server) query(m *dns.Msg, q dns.Question) {
	name := strings.ToLower(q.Name)
	for z, rrs := range s.zones {
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

// ixfr answers an IXFR query (RFC 1995 section 4) whose authority
// section holds the client's SOA: the changes since its serial from the
// journal, the SOA alone when the client is up to date, or the whole zone
// as in AXFR when the journal does not reach back.
func (s *Server) ixfr(m *dns.Msg, zone string, auth []dns.RR) {
	rrs := s.zones[zone]
	if len(rrs) == 0 {
		m.Rcode = dns.RcodeNotAuth
		return
	}
	cur := rrs[0].(*dns.SOA)
	var from uint32
	if len(auth) > 0 {
		if soa, ok := auth[0].(*dns.SOA); ok {
			from = soa.Serial
		}
	}
	if from == cur.Serial {
		m.Answer = []dns.RR{cur}
		return
	}
	j := s.journal[zone]
	for i, d := range j {
		if d.from.Serial != from {
			continue
		}
		m.Answer = []dns.RR{cur}
		for _, d := range j[i:] {
			m.Answer = append(m.Answer, d.from)
			m.Answer = append(m.Answer, d.del...)
			m.Answer = append(m.Answer, d.to)
			m.Answer = append(m.Answer, d.added...)
		}
		m.Answer = append(m.Answer, cur)
		return
	}
	m.Answer = append(append([]dns.RR{}, rrs...), cur)
}

// update applies an UPDATE's changes (RFC 2136 section 2.5) to zone and,
// when they set a new SOA, journals what they changed.
func (s *Server) update(zone string, changes []dns.RR) {
	rrs := s.zones[zone]
	before := append([]dns.RR(nil), rrs...)
	defer func() { s.journalChange(zone, before, s.zones[zone]) }()
	rrs = append([]dns.RR(nil), rrs...)
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
	s.zones[zone] = rrs
}

// journalChange appends the change from the records before to those
// after (SOA first in both) to the zone's journal, when the SOA's serial
// moved.
func (s *Server) journalChange(zone string, before, after []dns.RR) {
	if len(before) == 0 || len(after) == 0 {
		return
	}
	from, to := before[0].(*dns.SOA), after[0].(*dns.SOA)
	if from.Serial == to.Serial {
		return
	}
	d := delta{from: from, to: to, del: missing(before[1:], after[1:]), added: missing(after[1:], before[1:])}
	s.journal[zone] = append(s.journal[zone], d)
}

// missing returns the records of a that b does not hold.
func missing(a, b []dns.RR) []dns.RR {
	var out []dns.RR
	for _, rr := range a {
		found := false
		for _, o := range b {
			if dns.IsDuplicate(rr, o) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, rr)
		}
	}
	return out
}
