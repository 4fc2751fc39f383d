package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Provider is the webhook's provider: it plans and applies external-dns's
// changes to the configured zones and lists their endpoints, through the
// front ends' contract. Set Zones (canonical: lower case, no trailing
// dot) and Service: a zone's RRsets and its conditional apply, all the
// webhook uses (package frontend/adapter implements them over the zone
// service). It keeps each zone's endpoints listed last (ZoneEndpoints):
// use one Provider per handler, by pointer.
type Provider struct {
	Zones   []string
	Service frontend.ExternalDNSZones

	cache listings
}

// ZoneUpdate is the UPDATE of one zone: its preconditions (RFC 2136
// prerequisites) and changes, each change one record of the UPDATE,
// checked and built before anything is sent. Names and data are absolute
// (zonemodel.ParseRootRecord).
type ZoneUpdate struct {
	Zone    string
	Pre     []zonemodel.Precondition
	Changes []zonemodel.Change
}

// Apply sends the zone's UPDATE, all or nothing. A precondition that no
// longer holds is a *zonemodel.PrerequisiteError.
func (pr *Provider) Apply(ctx context.Context, zu *ZoneUpdate) error {
	_, _, err := pr.Service.ApplyIf(ctx, zu.Zone, zu.Pre, zu.Changes)
	return err
}

// CanonicalZone returns z lower case without its trailing dot, and
// whether it is a domain name.
func CanonicalZone(z string) (string, bool) {
	c := strings.TrimSuffix(strings.ToLower(z), ".")
	return c, zonemodel.IsDomainName(c) && c != ""
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
		if zu := p.byZone[z]; zu != nil && len(zu.Changes) > 0 {
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
// UPDATE of its zone and its RRset (records). An endpoint without a TTL
// takes the zone's SOA TTL, except in updateOld and delete, whose records
// are matched by value (their TTL does not matter).
func (p *planner) at(ep *Endpoint, field string, i int) (*ZoneUpdate, *records, error) {
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
		_, sets, err := p.pr.Service.Records(p.ctx, zone)
		if err != nil {
			return nil, nil, fmt.Errorf("reading zone %s: %v", zone, err)
		}
		ttl = soaTTL(sets)
	}
	rs, err := toRecords(ep, ttl)
	if err != nil {
		return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
	}
	return zu, rs, nil
}

// soaTTL is the TTL of the zone's SOA, among its RRsets (0 without one).
func soaTTL(sets []zonemodel.RRset) uint32 {
	for _, s := range sets {
		if s.Type == "SOA" {
			return s.TTL
		}
	}
	return 0
}

// add appends the changes adding the records rs.
func (zu *ZoneUpdate) add(rs *records) {
	ttl := rs.ttl
	for _, v := range rs.values {
		zu.Changes = append(zu.Changes, zonemodel.Change{Op: zonemodel.OpAdd, Name: rs.owner, Type: rs.typ, Value: v, TTL: &ttl})
	}
}

// updates plans the replacement of each RRset of olds by the same item of
// news (the slices have the same length).
func (p *planner) updates(olds, news []*Endpoint) error {
	for i, ep := range olds {
		zu, rs, err := p.at(ep, "updateOld", i)
		if err != nil {
			return err
		}
		// The RRset must still be exactly as external-dns read it: RFC
		// 2136 "RRset exists (value dependent)".
		zu.Pre = append(zu.Pre, zonemodel.RRsetExists(rs.owner, rs.typ, rs.values))
		// ...then it is replaced.
		zu.Changes = append(zu.Changes, zonemodel.Change{Op: zonemodel.OpDelete, Name: rs.owner, Type: rs.typ})
		nz, nrs, err := p.at(news[i], "updateNew", i)
		if err != nil {
			return err
		}
		if nz != zu || !strings.EqualFold(nrs.owner, rs.owner) || nrs.typ != rs.typ {
			return fmt.Errorf("updateNew[%d] (%s %s) is not the RRset of updateOld[%d] (%s %s)", i, news[i].DNSName, news[i].RecordType, i, ep.DNSName, ep.RecordType)
		}
		zu.add(nrs)
	}
	return nil
}

// creates plans the creation of each RRset of eps.
func (p *planner) creates(eps []*Endpoint) error {
	for i, ep := range eps {
		zu, rs, err := p.at(ep, "create", i)
		if err != nil {
			return err
		}
		// A created RRset must not exist yet: RFC 2136 "RRset does not
		// exist", so a record made meanwhile by someone else is not
		// merged into.
		zu.Pre = append(zu.Pre, zonemodel.RRsetAbsent(rs.owner, rs.typ))
		zu.add(rs)
	}
	return nil
}

// deletes plans the deletion of the records of eps.
func (p *planner) deletes(eps []*Endpoint) error {
	for i, ep := range eps {
		zu, rs, err := p.at(ep, "delete", i)
		if err != nil {
			return err
		}
		// Only the records external-dns owns go: each by its value.
		for _, v := range rs.values {
			zu.Changes = append(zu.Changes, zonemodel.Change{Op: zonemodel.OpRemove, Name: rs.owner, Type: rs.typ, Value: v})
		}
	}
	return nil
}

// ZoneOf returns the configured zone with the longest suffix matching
// name (on a label boundary).
func (pr *Provider) ZoneOf(name string) (string, error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if !zonemodel.IsDomainName(n) || n == "" {
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
