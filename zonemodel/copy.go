package zonemodel

import (
	"strings"

	"github.com/miekg/dns"
)

// CopyRecords returns the records of the zone from as records of the zone
// to (both zone names as NormalizeZoneName gives them): owners at or
// below from are moved below to, and so are the names inside from that
// the data of SOA, NS, CNAME, DNAME, MX, SRV, PTR, NAPTR, AFSDB, RT, KX
// and PX records hold (a name outside from stays as it is). The DNSSEC
// records (RRSIG, NSEC, NSEC3, NSEC3PARAM, DNSKEY, CDS, CDNSKEY, ZONEMD,
// BIND's private signing-state type 65534) are left out: they sign the
// old name, and a copy is signed, if at all, by its own policy.
func CopyRecords(rrs []dns.RR, from, to string) []dns.RR {
	src, dst := Origin(from), Origin(to)
	move := func(name string) string {
		l := strings.ToLower(name)
		switch {
		case l == src:
			return dst
		case inZone(l, src):
			// The labels below src, with their dot ("www." of
			// www.example.com. or of www.), then dst: the root's "."
			// is that dot already.
			below := name[:len(name)-len(src)]
			if src == Root {
				below += "."
			}
			if dst == Root {
				return below
			}
			return below + dst
		}
		return name
	}
	out := make([]dns.RR, 0, len(rrs))
	for _, rr := range rrs {
		switch rr.Header().Rrtype {
		case dns.TypeRRSIG, dns.TypeNSEC, dns.TypeNSEC3, dns.TypeNSEC3PARAM, dns.TypeDNSKEY,
			dns.TypeCDS, dns.TypeCDNSKEY, dns.TypeZONEMD, 65534:
			continue
		}
		rr = dns.Copy(rr)
		h := rr.Header()
		h.Name = move(h.Name)
		switch r := rr.(type) {
		case *dns.SOA:
			r.Ns, r.Mbox = move(r.Ns), move(r.Mbox)
		case *dns.NS:
			r.Ns = move(r.Ns)
		case *dns.CNAME:
			r.Target = move(r.Target)
		case *dns.DNAME:
			r.Target = move(r.Target)
		case *dns.MX:
			r.Mx = move(r.Mx)
		case *dns.SRV:
			r.Target = move(r.Target)
		case *dns.PTR:
			r.Ptr = move(r.Ptr)
		case *dns.NAPTR:
			r.Replacement = move(r.Replacement)
		case *dns.AFSDB:
			r.Hostname = move(r.Hostname)
		case *dns.RT:
			r.Host = move(r.Host)
		case *dns.KX:
			r.Exchanger = move(r.Exchanger)
		case *dns.PX:
			r.Map822, r.Mapx400 = move(r.Map822), move(r.Mapx400)
		}
		out = append(out, rr)
	}
	return out
}
