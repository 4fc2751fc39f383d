package dnsupdate

import (
	"context"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Add adds one record, given as a client writes it (owner relative to the
// zone or absolute, data in master-file form; the zone's default TTL when
// rec.TTL is nil). Adding a record that exists succeeds and changes no
// record, as in BIND; the serial still moves (every write sets it).
func (u *Updater) Add(ctx context.Context, zone string, rec zonemodel.Record, opt WriteOptions) (*ChangeResult, error) {
	if zonemodel.IsSOAType(rec.Type) {
		return nil, soaConflict("type")
	}
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	rr, err := zonemodel.ParseRecord(zone, ttl, rec.Name, rec.Type, rec.Value, rec.TTL, rec.Priority, "", "value")
	if err != nil {
		return nil, err
	}
	h := rr.Header()
	if h.Rrtype == dns.TypeCNAME && h.Name == zonemodel.Origin(zone) {
		return nil, &ConflictError{Field: "name", Message: "a CNAME is not allowed at the zone apex: it cannot coexist with the SOA and NS records (RFC 1034 §3.6.2)"}
	}
	res := &ChangeResult{Zone: zone, Records: []dns.RR{rr}, Changes: 1}
	r := records()
	if h.Rrtype == dns.TypeCNAME {
		r.NameNotUsed([]dns.RR{rr})
	} else if !coexistsWithCNAME[h.Rrtype] {
		r.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: dns.TypeCNAME}}})
	}
	if other := exclusiveBelowApex[h.Rrtype]; other != 0 && h.Name != zonemodel.Origin(zone) {
		// NS and DNAME do not share a name below the apex.
		r.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: other}}})
	}
	r.Insert([]dns.RR{dns.Copy(rr)})
	// A CNAME or DNAME add must not share a message: its prerequisite
	// ("name not in use", "no NS there") holds only before the other adds.
	merge := opt.IfSerial == nil && h.Rrtype != dns.TypeCNAME && h.Rrtype != dns.TypeDNAME
	w := &write{guarded: true, prereq: r.Answer, update: r.Ns, ifSerial: opt.IfSerial, method: opt.SerialMethod, merge: merge, applied: opt.Applied, hold: opt.Hold, added: []dns.RR{rr}}
	s, err := u.commit(ctx, zone, w)
	if err == nil {
		return s.into(res), nil
	}
	if IsRcode(err, dns.RcodeYXRrset) || IsRcode(err, dns.RcodeYXDomain) {
		cerr, same := u.explainAddConflict(ctx, zone, rr)
		if same {
			return u.finish(ctx, zone, res), nil
		}
		return nil, cerr
	}
	return nil, u.explainRefused(ctx, zone, rr, "value", err)
}

// explainRefused turns named's refusals that have a cause a client can act
// on into a *ConflictError: REFUSED of an added MX whose target is in the
// zone but has no address (named's check-integrity), and SERVFAIL of an
// add to an RRset at named's max-records-per-type (100 by default since
// BIND 9.18.28). Other errors are returned as they are.
func (u *Updater) explainRefused(ctx context.Context, zone string, rr dns.RR, field string, err error) error {
	if IsRcode(err, dns.RcodeServerFailure) {
		h := rr.Header()
		set, qerr := u.dns.Query(ctx, zone, h.Name, h.Rrtype)
		if qerr != nil || len(set) < 100 {
			return err
		}
		return &ConflictError{Field: field, Message: fmt.Sprintf("the %s RRset at %s already holds %d records and named refuses more (its max-records-per-type, 100 by default); remove some first, or raise the limit in named.conf", dns.TypeToString[h.Rrtype], h.Name, len(set))}
	}
	mx, ok := rr.(*dns.MX)
	if !ok || !IsRcode(err, dns.RcodeRefused) || !zonemodel.InZone(strings.ToLower(mx.Mx), zonemodel.Origin(zone)) {
		return err
	}
	a, qerr := u.dns.Query(ctx, zone, mx.Mx, dns.TypeA)
	aaaa, qerr2 := u.dns.Query(ctx, zone, mx.Mx, dns.TypeAAAA)
	if qerr != nil || qerr2 != nil || len(a)+len(aaaa) > 0 {
		return err
	}
	return mxConflict(field, mx)
}

// explainAddConflict reads the data at an add's name after named refused
// its CNAME prerequisite. same is true when the name holds exactly the
// CNAME being added (nothing to change).
func (u *Updater) explainAddConflict(ctx context.Context, zone string, rr dns.RR) (error, bool) {
	name := rr.Header().Name
	rrs, err := u.dns.Query(ctx, zone, name, dns.TypeANY)
	if err != nil {
		return &ConflictError{Field: "name", Message: fmt.Sprintf("%s: named refused the change because of a CNAME conflict (RFC 1034 §3.6.2)", name)}, false
	}
	d := nameData{}
	for _, x := range rrs {
		d[x.Header().Rrtype] = append(d[x.Header().Rrtype], x)
	}
	if rr.Header().Rrtype == dns.TypeCNAME && len(d.otherTypes()) == 0 && len(d[dns.TypeCNAME]) == 1 && dns.IsDuplicate(d[dns.TypeCNAME][0], rr) {
		return nil, true
	}
	if err := checkAdd(d, rr, "name", strings.EqualFold(name, zonemodel.Origin(zone))); err != nil {
		return err, false
	}
	return &ConflictError{Field: "name", Message: fmt.Sprintf("%s: named refused the change because of a CNAME conflict (RFC 1034 §3.6.2)", name)}, false
}

// Removal names what Remove deletes (zonemodel.Removal).
type Removal = zonemodel.Removal

// Remove deletes one record (Value set) or the RRset of name and type.
// Deleting what does not exist succeeds and changes no record, as in BIND;
// the serial still moves (every write sets it).
func (u *Updater) Remove(ctx context.Context, zone string, req Removal, opt WriteOptions) (*ChangeResult, error) {
	if err := u.writable(req.Type); err != nil {
		return nil, err
	}
	origin := zonemodel.Origin(zone)
	var rr dns.RR
	var name string
	var t uint16
	if req.Value == nil {
		ve := &zonemodel.ValidationError{}
		name, t = zonemodel.ParseNameType(zone, req.Name, req.Type, "", ve)
		if req.Priority != nil {
			ve.Add("priority", "is used only with value")
		}
		if len(ve.Problems) > 0 {
			return nil, ve
		}
		if name == origin && t == dns.TypeNS {
			return nil, &ConflictError{Field: "type", Message: "deleting every NS record at the zone apex would leave the zone without name servers (named ignores such a deletion); remove single records, or replace the set in a batch"}
		}
	} else {
		var err error
		rr, err = zonemodel.ParseRecord(zone, 0, req.Name, req.Type, *req.Value, nil, req.Priority, "", "value")
		if err != nil {
			return nil, err
		}
		name, t = rr.Header().Name, rr.Header().Rrtype
	}
	res := &ChangeResult{Zone: zone, Changes: 1}
	for attempt := 0; ; attempt++ {
		r := records()
		w := &write{guarded: true, ifSerial: opt.IfSerial, method: opt.SerialMethod, applied: opt.Applied, hold: opt.Hold}
		if rr == nil {
			r.RemoveRRset([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: name, Rrtype: t}}})
		} else {
			if name == origin && t == dns.TypeNS {
				set, err := u.dns.Query(ctx, zone, origin, dns.TypeNS)
				if err != nil {
					return nil, err
				}
				if containsRR(set, rr) {
					if len(set) == 1 {
						return nil, &ConflictError{Field: "value", Message: "this is the zone's last NS record: removing it would leave the zone without name servers (named ignores such a deletion)"}
					}
					r.Used(copyRRs(set))
				}
			}
			r.Remove([]dns.RR{dns.Copy(rr)})
		}
		w.prereq, w.update = r.Answer, r.Ns
		s, err := u.commit(ctx, zone, w)
		if err == nil {
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) && attempt < retries {
			continue // the apex NS set changed meanwhile
		}
		return nil, err
	}
}

// Replacement is one record's data replaced by other data
// (zonemodel.Replacement).
type Replacement = zonemodel.Replacement

// Replace replaces one record's data in one UPDATE message whose
// prerequisite is the RRset as read, holding the current value: it fails
// with ErrRecordNotFound when the current value does not exist.
func (u *Updater) Replace(ctx context.Context, zone string, req Replacement, opt WriteOptions) (*ChangeResult, error) {
	if err := u.writable(req.Type); err != nil {
		return nil, err
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	ve := &zonemodel.ValidationError{}
	cur := zonemodel.ParseRecordInto(zone, ttl, req.Name, req.Type, req.CurrentValue, nil, req.Priority, "", "currentValue", ve)
	next := zonemodel.ParseRecordInto(zone, ttl, req.Name, req.Type, req.NewValue, req.TTL, req.Priority, "", "newValue", ve)
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	name, t := cur.Header().Name, cur.Header().Rrtype
	res := &ChangeResult{Zone: zone, Records: []dns.RR{next}, Changes: 2}
	for attempt := 0; ; attempt++ {
		var set []dns.RR
		if attempt == 0 {
			// A query is cheap; it cannot tell a wildcard's synthesised
			// answer from real data, so retries read the zone itself.
			if set, err = u.dns.Query(ctx, zone, name, t); err != nil {
				return nil, err
			}
		} else {
			snap, err := u.Snapshot(ctx, zone)
			if err != nil {
				return nil, err
			}
			for _, rr := range snap.At(name) {
				if rr.Header().Rrtype == t {
					set = append(set, rr)
				}
			}
		}
		if !containsRR(set, cur) {
			return nil, ErrRecordNotFound
		}
		r := records()
		r.Used(copyRRs(set))
		r.Remove([]dns.RR{dns.Copy(cur)})
		r.Insert([]dns.RR{dns.Copy(next)})
		s, err := u.commit(ctx, zone, &write{guarded: true, prereq: r.Answer, update: r.Ns, ifSerial: opt.IfSerial, method: opt.SerialMethod, applied: opt.Applied, hold: opt.Hold})
		if err == nil {
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) && attempt < retries {
			continue
		}
		if IsRcode(err, dns.RcodeNXRrset) {
			return nil, &ConflictError{Message: "the RRset keeps changing concurrently; try again"}
		}
		return nil, u.explainRefused(ctx, zone, next, "newValue", err)
	}
}

// writable refuses a change of the SOA type (the service keeps the SOA)
// and any change without the update key's secret.
func (u *Updater) writable(typ string) error {
	if zonemodel.IsSOAType(typ) {
		return soaConflict("type")
	}
	if !u.dns.CanUpdate() {
		return ErrNoUpdateKey
	}
	return nil
}
