package externaldns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// zoneUpdate is the UPDATE of one zone.
type zoneUpdate struct {
	zone           string
	prereq, update []dns.RR
}

// applyChanges applies plan.Changes: every endpoint is checked and turned
// into records first (400, nothing sent, on any problem), then each zone's
// changes go as one UPDATE.
func (h *Handler) applyChanges(w http.ResponseWriter, r *http.Request) {
	var ch Changes
	if !decode(w, r, &ch) {
		return
	}
	svc, err := h.service()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	plan, err := h.plan(r.Context(), svc, &ch)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v; nothing was changed", err)
		return
	}
	var applied []string
	for _, zu := range plan {
		_, err := svc.ApplyUpdate(r.Context(), zu.zone, zu.prereq, zu.update)
		if err == nil {
			applied = append(applied, zu.zone)
			h.logger.Info("external-dns changes applied", zap.String("zone", zu.zone), zap.Int("changes", len(zu.update)))
			continue
		}
		done := "nothing was changed"
		if len(applied) > 0 {
			done = fmt.Sprintf("zone %s was not changed; zones %s were", zu.zone, strings.Join(applied, ", "))
		}
		var se *dnsupdate.ServerError
		if errors.As(err, &se) {
			switch se.Rcode {
			case dns.RcodeNXRrset, dns.RcodeYXRrset, dns.RcodeNameError, dns.RcodeYXDomain:
				h.logger.Warn("external-dns changes refused: a prerequisite failed", zap.String("zone", zu.zone), zap.String("rcode", dns.RcodeToString[se.Rcode]))
				writeError(w, http.StatusConflict, "zone %s changed since external-dns read it (named answered %s to the update's prerequisites: an updateOld RRset is no longer as read, or a created RRset exists); %s",
					zu.zone, dns.RcodeToString[se.Rcode], done)
				return
			}
		}
		var ce *dnsupdate.ConflictError
		if errors.As(err, &ce) {
			writeError(w, http.StatusConflict, "zone %s: %v; %s", zu.zone, err, done)
			return
		}
		h.logger.Error("external-dns changes failed", zap.String("zone", zu.zone), zap.Error(err))
		writeError(w, http.StatusInternalServerError, "zone %s: %v; %s", zu.zone, err, done)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// plan turns changes into one UPDATE per zone, in the order of the
// configured zones.
func (h *Handler) plan(ctx context.Context, svc *zoneservice.Service, ch *Changes) ([]*zoneUpdate, error) {
	p := &planner{h: h, ctx: ctx, svc: svc, byZone: map[string]*zoneUpdate{}}
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
	var out []*zoneUpdate
	for _, z := range h.zones {
		if zu := p.byZone[z]; zu != nil && len(zu.update) > 0 {
			out = append(out, zu)
		}
	}
	return out, nil
}

// planner collects the UPDATE of each zone while plan reads the changes;
// it lives for one plan call.
type planner struct {
	h      *Handler
	ctx    context.Context
	svc    *zoneservice.Service
	byZone map[string]*zoneUpdate
}

// at checks the endpoint ep, item i of the changes' field, and returns the
// UPDATE of its zone and its records. An endpoint without a TTL takes the
// zone's SOA TTL, except in updateOld and delete, whose records are
// matched by value (their TTL does not matter).
func (p *planner) at(ep *Endpoint, field string, i int) (*zoneUpdate, []dns.RR, error) {
	if ep == nil {
		return nil, nil, fmt.Errorf("%s[%d]: null endpoint", field, i)
	}
	zone, err := p.h.zoneOf(ep.DNSName)
	if err != nil {
		return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
	}
	if ep.SetIdentifier != "" {
		return nil, nil, fmt.Errorf("%s[%d]: setIdentifier %q: BIND has no routing policies, so endpoints with a set identifier are not supported", field, i, ep.SetIdentifier)
	}
	zu := p.byZone[zone]
	if zu == nil {
		zu = &zoneUpdate{zone: zone}
		p.byZone[zone] = zu
	}
	ttl := uint32(0)
	if ep.RecordTTL > 0 {
		ttl = uint32(min(ep.RecordTTL, 1<<31-1))
	} else if field != "updateOld" && field != "delete" {
		snap, err := p.svc.Snapshot(p.ctx, zone)
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
			zu.prereq = append(zu.prereq, rr)
		}
		// ...then it is replaced.
		del := &dns.ANY{Hdr: dns.RR_Header{Name: rrs[0].Header().Name, Rrtype: rrs[0].Header().Rrtype, Class: dns.ClassANY}}
		zu.update = append(zu.update, del)
		nz, nrrs, err := p.at(news[i], "updateNew", i)
		if err != nil {
			return err
		}
		if nz != zu || !strings.EqualFold(nrrs[0].Header().Name, rrs[0].Header().Name) || nrrs[0].Header().Rrtype != rrs[0].Header().Rrtype {
			return fmt.Errorf("updateNew[%d] (%s %s) is not the RRset of updateOld[%d] (%s %s)", i, news[i].DNSName, news[i].RecordType, i, ep.DNSName, ep.RecordType)
		}
		zu.update = append(zu.update, nrrs...)
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
		zu.prereq = append(zu.prereq, &dns.ANY{Hdr: dns.RR_Header{Name: h0.Name, Rrtype: h0.Rrtype, Class: dns.ClassNONE}})
		zu.update = append(zu.update, rrs...)
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
			zu.update = append(zu.update, rr)
		}
	}
	return nil
}

// zoneOf returns the configured zone with the longest suffix matching
// name (on a label boundary).
func (h *Handler) zoneOf(name string) (string, error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if _, ok := dns.IsDomainName(n); !ok || n == "" {
		return "", fmt.Errorf("dnsName %q is not a domain name", name)
	}
	best := ""
	for _, z := range h.zones {
		if (n == z || strings.HasSuffix(n, "."+z)) && len(z) > len(best) {
			best = z
		}
	}
	if best == "" {
		return "", fmt.Errorf("dnsName %q is in none of the zones this webhook manages (%s)", name, strings.Join(h.zones, ", "))
	}
	return best, nil
}
