package dnsupdate

import (
	"context"
	"fmt"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Delta is one step of a zone's changes as an IXFR answer tells it (RFC
// 1995 section 4): the records deleted from the zone at serial From and
// those added, which made serial To. The SOA records are not listed.
type Delta struct {
	From, To       uint32
	Deleted, Added []dns.RR
}

// IXFR asks named for the zone's changes since serial from (RFC 1995)
// over TCP. It returns the steps from "from" to the zone's current serial
// (none when the zone is at from), or, when named answers with the whole
// zone instead (its journal does not reach back to from, or the zone has
// none), full: the zone's records, starting with its SOA.
func (c *Client) IXFR(ctx context.Context, zone string, from uint32) (deltas []Delta, full []dns.RR, err error) {
	m := new(dns.Msg)
	m.SetIxfr(zonemodel.Origin(zone), from, ".", ".")
	rrs, err := c.transfer(ctx, zone, m, 0)
	if err != nil {
		return nil, nil, err
	}
	return parseIXFR(zone, rrs)
}

// parseIXFR reads an IXFR answer's records (RFC 1995 section 4): one SOA
// (up to date), SOA … SOA with a second SOA right after the first
// (incremental), or anything else (a full zone, as AXFR).
func parseIXFR(zone string, rrs []dns.RR) ([]Delta, []dns.RR, error) {
	if len(rrs) == 0 {
		return nil, nil, fmt.Errorf("ixfr of %s: empty answer", zone)
	}
	head, ok := rrs[0].(*dns.SOA)
	if !ok {
		return nil, nil, fmt.Errorf("ixfr of %s: the answer does not start with the SOA", zone)
	}
	if len(rrs) == 1 {
		return nil, nil, nil
	}
	if _, ok := rrs[1].(*dns.SOA); !ok {
		// A full zone: SOA, records, SOA.
		if last, ok := rrs[len(rrs)-1].(*dns.SOA); ok && last.Serial == head.Serial && len(rrs) > 1 {
			rrs = rrs[:len(rrs)-1]
		}
		return nil, rrs, nil
	}
	var out []Delta
	body := rrs[1 : len(rrs)-1]
	if last, ok := rrs[len(rrs)-1].(*dns.SOA); !ok || last.Serial != head.Serial {
		return nil, nil, fmt.Errorf("ixfr of %s: the answer does not end with the SOA of serial %d", zone, head.Serial)
	}
	// body: (SOA old, deleted…, SOA new, added…)*
	var d *Delta
	deleting := false
	for _, rr := range body {
		if soa, ok := rr.(*dns.SOA); ok {
			if !deleting {
				if d != nil {
					out = append(out, *d)
				}
				d = &Delta{From: soa.Serial}
			} else {
				d.To = soa.Serial
			}
			deleting = !deleting
			continue
		}
		if d == nil {
			return nil, nil, fmt.Errorf("ixfr of %s: a record before the first SOA", zone)
		}
		if deleting {
			d.Deleted = append(d.Deleted, rr)
		} else {
			d.Added = append(d.Added, rr)
		}
	}
	if d != nil {
		out = append(out, *d)
	}
	return out, nil, nil
}
