package dnsupdate

import (
	"strings"

	"github.com/miekg/dns"
)

// Diff returns the records of after that before lacks (added) and those
// of before that after lacks (removed), SOA records left out: the
// difference of two full copies of a zone (two AXFRs), for a change named
// has no journal of.
func Diff(before, after []dns.RR) (added, removed []dns.RR) {
	key := func(rr dns.RR) string {
		c := dns.Copy(rr)
		c.Header().Name = strings.ToLower(c.Header().Name)
		return c.String()
	}
	in := func(rrs []dns.RR) map[string]bool {
		m := make(map[string]bool, len(rrs))
		for _, rr := range rrs {
			m[key(rr)] = true
		}
		return m
	}
	b, a := in(before), in(after)
	for _, rr := range after {
		if rr.Header().Rrtype != dns.TypeSOA && !b[key(rr)] {
			added = append(added, rr)
		}
	}
	for _, rr := range before {
		if rr.Header().Rrtype != dns.TypeSOA && !a[key(rr)] {
			removed = append(removed, rr)
		}
	}
	return added, removed
}
