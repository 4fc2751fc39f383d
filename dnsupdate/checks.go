package dnsupdate

import (
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// nameData is the simulated data at one owner name, by type.
type nameData map[uint16][]dns.RR

// simulation applies a batch to the affected names of a snapshot, in
// order, enforcing the rules named would otherwise apply silently.
type simulation struct {
	snap  *Snapshot
	names map[string]nameData
}

func (s *simulation) at(name string) nameData {
	if d, ok := s.names[name]; ok {
		return d
	}
	d := nameData{}
	for _, rr := range s.snap.At(name) {
		t := rr.Header().Rrtype
		d[t] = append(d[t], rr)
	}
	s.names[name] = d
	return d
}

// coexistsWithCNAME lists the types allowed beside a CNAME (DNSSEC data).
var coexistsWithCNAME = map[uint16]bool{dns.TypeRRSIG: true, dns.TypeNSEC: true, dns.TypeNSEC3: true, dns.TypeKEY: true}

// otherTypes lists the types at a name that cannot sit beside a CNAME.
func (d nameData) otherTypes() []string {
	var out []string
	for t, rrs := range d {
		if len(rrs) > 0 && t != dns.TypeCNAME && !coexistsWithCNAME[t] {
			out = append(out, zonemodel.TypeString(t))
		}
	}
	sortStrings(out)
	return out
}

func (s *simulation) apply(c change) error {
	d := s.at(c.name)
	switch c.op {
	case OpAdd:
		if err := checkAdd(d, c.rr, c.field, c.name == zonemodel.Origin(s.snap.Zone)); err != nil {
			return err
		}
		if mx, ok := c.rr.(*dns.MX); ok && zonemodel.InZone(strings.ToLower(mx.Mx), zonemodel.Origin(s.snap.Zone)) {
			t := s.at(strings.ToLower(mx.Mx))
			if len(t[dns.TypeA])+len(t[dns.TypeAAAA]) == 0 {
				return mxConflict(c.field, mx)
			}
		}
		d[c.rrtype] = addRR(d[c.rrtype], c.rr)
	case OpRemove:
		d[c.rrtype] = removeRR(d[c.rrtype], c.rr)
	case OpDelete:
		delete(d, c.rrtype)
	}
	return nil
}

// checkAdd refuses an add that named would ignore: data beside a CNAME, a
// second CNAME, a CNAME beside data; and one named would take but not
// serve: a DNAME beside NS records below the apex (at a delegation), or
// NS records beside a DNAME there.
func checkAdd(d nameData, rr dns.RR, field string, apex bool) error {
	h := rr.Header()
	if h.Rrtype == dns.TypeCNAME {
		if cur := d[dns.TypeCNAME]; len(cur) > 0 && !dns.IsDuplicate(cur[0], rr) {
			return &ConflictError{Field: field, Message: fmt.Sprintf("%s already has a CNAME (to %s); a name has at most one CNAME: replace it (PUT, or delete then add)", h.Name, cur[0].(*dns.CNAME).Target)}
		}
		if other := d.otherTypes(); len(other) > 0 {
			return &ConflictError{Field: field, Message: fmt.Sprintf("a CNAME at %s cannot coexist with the %s data there (RFC 1034 §3.6.2)", h.Name, strings.Join(other, ", "))}
		}
		return nil
	}
	if cur := d[dns.TypeCNAME]; len(cur) > 0 && !coexistsWithCNAME[h.Rrtype] {
		return &ConflictError{Field: field, Message: fmt.Sprintf("%s is a CNAME (to %s): other data cannot be added beside it (RFC 1034 §3.6.2)", h.Name, cur[0].(*dns.CNAME).Target)}
	}
	if other := exclusiveBelowApex[h.Rrtype]; !apex && other != 0 && len(d[other]) > 0 {
		return nsDNAMEConflict(field, h.Name)
	}
	return nil
}

// nsDNAMEConflict refuses NS and DNAME records at one name below the
// apex, in PowerDNS's words: a DNAME at a delegation point is never
// served (RFC 6672 §2.3), and named takes the UPDATE all the same.
func nsDNAMEConflict(field, name string) error {
	return &ConflictError{Field: field, Message: fmt.Sprintf("Cannot have both NS and DNAME except in zone apex: %s would hold both (RFC 6672 §2.3; a DNAME at a delegation is not served)", name)}
}

// addRR adds rr to an RRset unless present; like named, the RRset takes
// the new record's TTL.
func addRR(set []dns.RR, rr dns.RR) []dns.RR {
	out := make([]dns.RR, 0, len(set)+1)
	ttl := rr.Header().Ttl
	found := false
	for _, x := range set {
		if dns.IsDuplicate(x, rr) {
			found = true
		}
		x = dns.Copy(x)
		x.Header().Ttl = ttl
		out = append(out, x)
	}
	if !found {
		out = append(out, dns.Copy(rr))
	}
	return out
}

func removeRR(set []dns.RR, rr dns.RR) []dns.RR {
	var out []dns.RR
	for _, x := range set {
		if !dns.IsDuplicate(x, rr) {
			out = append(out, x)
		}
	}
	return out
}

func containsRR(set []dns.RR, rr dns.RR) bool {
	for _, x := range set {
		if dns.IsDuplicate(x, rr) {
			return true
		}
	}
	return false
}

func copyRRs(set []dns.RR) []dns.RR {
	out := make([]dns.RR, len(set))
	for i, rr := range set {
		out[i] = dns.Copy(rr)
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// exclusiveBelowApex pairs the types that do not share a name below the
// apex: NS and DNAME.
var exclusiveBelowApex = map[uint16]uint16{dns.TypeNS: dns.TypeDNAME, dns.TypeDNAME: dns.TypeNS}
