package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Provider is the webhook's provider: it plans and applies external-dns's
// changes to the configured zones and lists their endpoints, through the
// zone service. Set Zones (canonical: lower case, no trailing dot) and
// Service: the service's records concern, all the webhook uses. It keeps
// each zone's endpoints listed last (ZoneEndpoints): use one Provider per
// handler, by pointer.
type Provider struct {
	Zones   []string
	Service zoneservice.Records

	cache listings
}

// ZoneUpdate is the UPDATE of one zone: RFC 2136 prerequisites and
// updates, checked and built before anything is sent.
type ZoneUpdate struct {
	Zone           string
	Prereq, Update []dns.RR
}

// Apply sends the zone's UPDATE, all or nothing. A prerequisite that no
// longer holds is reported by PrerequisiteFailed.
func (pr *Provider) Apply(ctx context.Context, zu *ZoneUpdate) error {
	_, err := pr.Service.ApplyUpdate(ctx, zu.Zone, zu.Prereq, zu.Update)
	return err
}

// PrerequisiteFailed reports whether err is named's answer that a
// prerequisite of the UPDATE failed (RFC 2136 section 3.2: NXRRSET,
// YXRRSET, NXDOMAIN, YXDOMAIN) and, if so, that rcode's mnemonic.
func PrerequisiteFailed(err error) (string, bool) {
	var se *dnsupdate.ServerError
	if !errors.As(err, &se) {
		return "", false
	}
	switch se.Rcode {
	case dns.RcodeNXRrset, dns.RcodeYXRrset, dns.RcodeNameError, dns.RcodeYXDomain:
		return dns.RcodeToString[se.Rcode], true
	}
	return "", false
}

// CanonicalZone returns z lower case without its trailing dot, and
// whether it is a domain name.
func CanonicalZone(z string) (string, bool) {
	c := strings.TrimSuffix(strings.ToLower(z), ".")
	_, ok := dns.IsDomainName(c)
	return c, ok && c != ""
}

// Plan turns changes into one UPDATE per zone, in the order of the
// configured zones.
func (pr *Provider) Plan(ctx context.Context, ch *Changes) ([]*ZoneUpdate, error) {
	p := &planner{pr: pr, ctx: ctx, byZone: map[string]*ZoneUpdate{}}
	if len(ch.UpdateOld) != len(ch.UpdateNew) {
		return nil, fmt.Errorf("updateOld has %d endpoints and updateNew %d: they must pair up", len(ch.UpdateOld), len(ch.UpdateNew))
	}
	if err := p.updates(ch.UpdateOld, ch.UpdateNew); err != nil {
		return nil, err
	}
	if err := p.creates(ch.Create); err != nil {
		return nil, err
	}
	if err := p.deletes(ch.Delete); err != nil {
		return nil, err
	}
	var out []*ZoneUpdate
	for _, z := range pr.Zones {
		if zu := p.byZone[z]; zu != nil && len(zu.Update) > 0 {
			out = append(out, zu)
		}
	}
	return out, nil
}

// planner collects the UPDATE of each zone while plan reads the changes;
// it lives for one plan call.
type planner struct {
	pr     *Provider
	ctx    context.Context
	byZone map[string]*ZoneUpdate
}

// at checks the endpoint ep, item i of the changes' field, and returns the
// UPDATE of its zone and its records. An endpoint without a TTL takes the
// zone's SOA TTL, except in updateOld and delete, whose records are
// matched by value (their TTL does not matter).
func (p *planner) at(ep *Endpoint, field string, i int) (*ZoneUpdate, []dns.RR, error) {
	if ep == nil {
		return nil, nil, fmt.Errorf("%s[%d]: null endpoint", field, i)
	}
	zone, err := p.pr.ZoneOf(ep.DNSName)
	if err != nil {
		return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
	}
	if ep.SetIdentifier != "" {
		return nil, nil, fmt.Errorf("%s[%d]: setIdentifier %q: BIND has no routing policies, so endpoints with a set identifier are not supported", field, i, ep.SetIdentifier)
	}
	zu := p.byZone[zone]
	if zu == nil {
		zu = &ZoneUpdate{Zone: zone}
		p.byZone[zone] = zu
	}
	ttl := uint32(0)
	if ep.RecordTTL > 0 {
		ttl = uint32(min(ep.RecordTTL, 1<<31-1))
	} else if field != "updateOld" && field != "delete" {
		snap, err := p.pr.Service.Snapshot(p.ctx, zone)
		if err != nil {
			return nil, nil, fmt.Errorf("reading zone %s: %v", zone, err)
		}
		ttl = snap.SOA.Hdr.Ttl
	}
	rrs, err := toRRs(ep, ttl)
	if err != nil {
		return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
	}
	return zu, rrs, nil
}

// updates plans the replacement of each RRset of olds by the same item of
// news (the slices have the same length).
func (p *planner) updates(olds, news []*Endpoint) error {
	for i, ep := range olds {
		zu, rrs, err := p.at(ep, "updateOld", i)
		if err != nil {
			return err
		}
		// The RRset must still be exactly as external-dns read it: RFC
		// 2136 "RRset exists (value dependent)".
		for _, rr := range rrs {
			rr.Header().Ttl = 0
			zu.Prereq = append(zu.Prereq, rr)
		}
		// ...then it is replaced.
		del := &dns.ANY{Hdr: dns.RR_Header{Name: rrs[0].Header().Name, Rrtype: rrs[0].Header().Rrtype, Class: dns.ClassANY}}
		zu.Update = append(zu.Update, del)
		nz, nrrs, err := p.at(news[i], "updateNew", i)
		if err != nil {
			return err
		}
		if nz != zu || !strings.EqualFold(nrrs[0].Header().Name, rrs[0].Header().Name) || nrrs[0].Header().Rrtype != rrs[0].Header().Rrtype {
			return fmt.Errorf("updateNew[%d] (%s %s) is not the RRset of updateOld[%d] (%s %s)", i, news[i].DNSName, news[i].RecordType, i, ep.DNSName, ep.RecordType)
		}
		zu.Update = append(zu.Update, nrrs...)
	}
	return nil
}

// creates plans the creation of each RRset of eps.
func (p *planner) creates(eps []*Endpoint) error {
	for i, ep := range eps {
		zu, rrs, err := p.at(ep, "create", i)
		if err != nil {
			return err
		}
		// A created RRset must not exist yet: RFC 2136 "RRset does not
		// exist", so a record made meanwhile by someone else is not
		// merged into.
		h0 := rrs[0].Header()
		zu.Prereq = append(zu.Prereq, &dns.ANY{Hdr: dns.RR_Header{Name: h0.Name, Rrtype: h0.Rrtype, Class: dns.ClassNONE}})
		zu.Update = append(zu.Update, rrs...)
	}
	return nil
}

// deletes plans the deletion of the records of eps.
func (p *planner) deletes(eps []*Endpoint) error {
	for i, ep := range eps {
		zu, rrs, err := p.at(ep, "delete", i)
		if err != nil {
			return err
		}
		// Only the records external-dns owns go: each by its value.
		for _, rr := range rrs {
			rr.Header().Class, rr.Header().Ttl = dns.ClassNONE, 0
			zu.Update = append(zu.Update, rr)
		}
	}
	return nil
}

// ZoneOf returns the configured zone with the longest suffix matching
// name (on a label boundary).
func (pr *Provider) ZoneOf(name string) (string, error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if _, ok := dns.IsDomainName(n); !ok || n == "" {
		return "", fmt.Errorf("dnsName %q is not a domain name", name)
	}
	best := ""
	for _, z := range pr.Zones {
		if (n == z || strings.HasSuffix(n, "."+z)) && len(z) > len(best) {
			best = z
		}
	}
	if best == "" {
		return "", fmt.Errorf("dnsName %q is in none of the zones this webhook manages (%s)", name, strings.Join(pr.Zones, ", "))
	}
	return best, nil
}
