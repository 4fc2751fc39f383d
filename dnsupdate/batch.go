package dnsupdate

import (
	"context"
	"fmt"
	"strconv"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Batch applies the changes in order as one UPDATE message: all or
// nothing, one serial bump. The changes are checked against a snapshot of
// the zone (CNAME rules, apex NS), and the message's prerequisite is that
// snapshot's SOA, so a concurrent change makes named refuse it; the batch
// is then prepared again, or, with IfSerial, fails with a
// *PreconditionError.
func (u *Updater) Batch(ctx context.Context, zone string, batch []Change, opt WriteOptions) (*ChangeResult, error) {
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	var changes []change
	if len(batch) > 0 || opt.SOA == nil {
		if changes, err = parseBatch(zone, ttl, batch); err != nil {
			return nil, err
		}
	}
	if opt.SOA == nil && isSimple(zone, changes) {
		if res, err, done := u.guardedBatch(ctx, zone, changes, opt); done {
			return res, err
		}
	}
	for attempt := 0; ; attempt++ {
		snap, err := u.Snapshot(ctx, zone)
		if err != nil {
			return nil, err
		}
		if opt.IfSerial != nil && snap.Serial() != *opt.IfSerial {
			return nil, &PreconditionError{Expected: *opt.IfSerial, Current: snap.Serial()}
		}
		m, res, err := batchMessage(zone, snap, changes)
		if err != nil {
			return nil, err
		}
		s, err := u.commit(ctx, zone, &write{guarded: true, update: m.Ns, exact: snap.SOA, soa: opt.SOA, method: opt.SerialMethod, applied: opt.Applied, hold: opt.Hold})
		if err == nil {
			if opt.SOA != nil {
				res.Changes++
			}
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) {
			if opt.IfSerial != nil {
				cur := uint32(0)
				if soa, serr := u.dns.SOA(ctx, zone); serr == nil {
					cur = soa.Serial
				}
				return nil, &PreconditionError{Expected: *opt.IfSerial, Current: cur}
			}
			if attempt < retries {
				continue
			}
			return nil, &ConflictError{Message: "the zone keeps changing concurrently; try again"}
		}
		return nil, err
	}
}

// batchMessage checks changes against snap (CNAME rules, apex NS) and
// builds the UPDATE body that applies them. Changes of the apex NS RRset
// are sent as adds of the final set followed by removals of the old
// records, the only order named does not ignore.
func batchMessage(zone string, snap *Snapshot, changes []change) (*dns.Msg, *ChangeResult, error) {
	origin := zonemodel.Origin(zone)
	sim := &simulation{snap: snap, names: map[string]nameData{}}
	for _, c := range changes {
		if err := sim.apply(c); err != nil {
			return nil, nil, err
		}
	}
	if err := checkDSAtDelegations(origin, sim, changes); err != nil {
		return nil, nil, err
	}
	apexNS := false
	if d, ok := sim.names[origin]; ok {
		if _, touched := touchedType(changes, origin, dns.TypeNS); touched {
			apexNS = true
			if len(d[dns.TypeNS]) == 0 {
				f, _ := touchedType(changes, origin, dns.TypeNS)
				return nil, nil, &ConflictError{Field: f, Message: "the changes leave the zone apex without NS records (named would ignore the deletion)"}
			}
		}
	}

	m := records()
	res := &ChangeResult{Zone: zone, OldSerial: snap.Serial(), HasOldSerial: true}
	for _, c := range changes {
		if apexNS && c.name == origin && c.rrtype == dns.TypeNS {
			continue
		}
		switch c.op {
		case OpAdd:
			m.Insert([]dns.RR{dns.Copy(c.rr)})
			res.Records = append(res.Records, c.rr)
		case OpRemove:
			m.Remove([]dns.RR{dns.Copy(c.rr)})
		case OpDelete:
			m.RemoveRRset([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: c.rrtype}}})
		}
		res.Changes++
	}
	if apexNS {
		// named ignores deleting the apex NS RRset and removing its
		// last record, so the new set is added before the old
		// records are removed one by one.
		final := sim.names[origin][dns.TypeNS]
		m.Insert(copyRRs(final))
		for _, rr := range snap.At(origin) {
			if rr.Header().Rrtype == dns.TypeNS && !containsRR(final, rr) {
				m.Remove([]dns.RR{dns.Copy(rr)})
				res.Changes++
			}
		}
		res.Changes += len(final)
	}
	return m, res, nil
}

// touchedType returns the field of the first change of name and type.
func touchedType(changes []change, name string, t uint16) (string, bool) {
	for _, c := range changes {
		if c.name == name && c.rrtype == t {
			return c.field, true
		}
	}
	return "", false
}

// isSimple reports whether named can check a batch's rules by itself,
// given a "no CNAME" guard per added name and a "no DNAME" prerequisite
// per NS add below the apex: no CNAME, MX, DS or DNAME added, no apex NS
// touched.
func isSimple(zone string, changes []change) bool {
	origin := zonemodel.Origin(zone)
	for _, c := range changes {
		if c.rrtype == dns.TypeCNAME && c.op == OpAdd || c.rrtype == dns.TypeMX && c.op == OpAdd || c.rrtype == dns.TypeDS && c.op == OpAdd ||
			c.rrtype == dns.TypeDNAME && c.op == OpAdd ||
			c.name == origin && c.rrtype == dns.TypeNS {
			return false
		}
	}
	return true
}

// simpleBody builds the UPDATE of a simple batch (isSimple): its changes
// in order, and guarded, each name an add needs the "no CNAME there" rule
// checked for (an add of a type that cannot sit beside a CNAME, at a name
// whose CNAME no earlier change of the batch deletes), once; and prereq,
// a prerequisite "no DNAME here" for each name below origin where it adds
// NS records and no earlier change deletes a DNAME.
func simpleBody(origin string, changes []change) (prereq, body []dns.RR, guarded []string, res *ChangeResult) {
	res = &ChangeResult{}
	var cnameGone, dnameGone map[string]bool
	var nsGuarded map[string]bool
	seen := make(map[string]bool, len(changes))
	body = make([]dns.RR, 0, len(changes))
	for _, c := range changes {
		switch c.op {
		case OpAdd:
			if !cnameGone[c.name] && !seen[c.name] && !coexistsWithCNAME[c.rrtype] {
				seen[c.name] = true
				guarded = append(guarded, c.name)
			}
			if c.rrtype == dns.TypeNS && c.name != origin && !dnameGone[c.name] && !nsGuarded[c.name] {
				if nsGuarded == nil {
					nsGuarded = map[string]bool{}
				}
				nsGuarded[c.name] = true
				prereq = append(prereq, &dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: dns.TypeDNAME, Class: dns.ClassNONE}})
			}
			// Nothing changes the records of an UPDATE once built (packing
			// leaves them as they are): an add of class IN, as parsed, is
			// sent as it is and also returned.
			rr := c.rr
			if rr.Header().Class != dns.ClassINET {
				rr = dns.Copy(rr)
				rr.Header().Class = dns.ClassINET
			}
			body = append(body, rr)
			if res.Records == nil {
				res.Records = make([]dns.RR, 0, len(changes))
			}
			res.Records = append(res.Records, c.rr)
		case OpRemove:
			rr := dns.Copy(c.rr)
			rr.Header().Class, rr.Header().Ttl = dns.ClassNONE, 0
			body = append(body, rr)
		case OpDelete:
			switch c.rrtype {
			case dns.TypeCNAME:
				if cnameGone == nil {
					cnameGone = map[string]bool{}
				}
				cnameGone[c.name] = true
			case dns.TypeDNAME:
				if dnameGone == nil {
					dnameGone = map[string]bool{}
				}
				dnameGone[c.name] = true
			}
			body = append(body, &dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: c.rrtype, Class: dns.ClassANY}})
		}
		res.Changes++
	}
	return prereq, body, guarded, res
}

// Batch change operations (zonemodel's).
const (
	OpAdd     = zonemodel.OpAdd
	OpRemove  = zonemodel.OpRemove
	OpReplace = zonemodel.OpReplace
	OpDelete  = zonemodel.OpDelete
)

// Change is one change of a batch (zonemodel.Change).
type Change = zonemodel.Change

// change is a validated batch step.
type change struct {
	op     string // OpAdd, OpRemove or OpDelete (replace is expanded)
	name   string
	rrtype uint16
	rr     dns.RR // add, remove
	field  string
}

// parseBatch validates every change and expands replace into a delete and
// adds.
func parseBatch(zone string, defaultTTL uint32, batch []Change) ([]change, error) {
	ve := &zonemodel.ValidationError{}
	if len(batch) == 0 {
		ve.Add("changes", "must list at least one change")
		return nil, ve
	}
	out := make([]change, 0, len(batch))
	for i := range batch {
		c := &batch[i]
		field := "changes[" + strconv.Itoa(i) + "]"
		if zonemodel.IsSOAType(c.Type) {
			return nil, soaConflict(field)
		}
		switch c.Op {
		case OpAdd, OpRemove:
			if len(c.Values) > 0 {
				ve.Add(field+".values", "is for replace; %s takes value", c.Op)
			}
			if c.Op == OpRemove && c.TTL != nil {
				ve.Add(field+".ttl", "is not used by remove")
			}
			rr := zonemodel.ParseRecordInto(zone, defaultTTL, c.Name, c.Type, c.Value, c.TTL, c.Priority, field, "value", ve)
			if rr != nil {
				out = append(out, change{op: c.Op, name: rr.Header().Name, rrtype: rr.Header().Rrtype, rr: rr, field: field})
			}
		case OpReplace:
			if c.Value != "" {
				ve.Add(field+".value", "replace takes values (a list)")
			}
			if len(c.Values) == 0 {
				ve.Add(field+".values", "must list at least one value (use delete to remove the RRset)")
			}
			name, t := zonemodel.ParseNameType(zone, c.Name, c.Type, field, ve)
			if name == "" || t == 0 {
				continue
			}
			out = append(out, change{op: OpDelete, name: name, rrtype: t, field: field})
			for j, v := range c.Values {
				rr := zonemodel.ParseRecordInto(zone, defaultTTL, c.Name, c.Type, v, c.TTL, c.Priority, field, fmt.Sprintf("values[%d]", j), ve)
				if rr != nil {
					out = append(out, change{op: OpAdd, name: name, rrtype: t, rr: rr, field: field})
				}
			}
		case OpDelete:
			if c.Value != "" || len(c.Values) > 0 {
				ve.Add(field+".value", "delete removes the whole RRset and takes no value (use remove for one record)")
			}
			if c.TTL != nil || c.Priority != nil {
				ve.Add(field, "delete takes no ttl or priority")
			}
			name, t := zonemodel.ParseNameType(zone, c.Name, c.Type, field, ve)
			if name != "" && t != 0 {
				out = append(out, change{op: OpDelete, name: name, rrtype: t, field: field})
			}
		case "":
			ve.Add(field+".op", "must not be empty (add, remove, replace or delete)")
		default:
			ve.Add(field+".op", "%q is not an operation (add, remove, replace or delete)", c.Op)
		}
	}
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return out, nil
}

// checkDSAtDelegations refuses a DS record added at a name that has no
// NS records once the changes are made: named takes such an UPDATE and
// bumps the serial but keeps no DS outside a delegation point, so the
// change would be answered as made and not be there. At the apex a DS
// belongs to the parent zone.
func checkDSAtDelegations(origin string, sim *simulation, changes []change) error {
	for _, c := range changes {
		if c.op != OpAdd || c.rrtype != dns.TypeDS {
			continue
		}
		if c.name == origin {
			return &ConflictError{Field: c.field, Message: "a DS record belongs to the parent zone, not at the apex of " + origin}
		}
		if len(sim.at(c.name)[dns.TypeNS]) == 0 {
			return &ConflictError{Field: c.field, Message: fmt.Sprintf("a DS record at %s needs NS records there: a DS belongs at a delegation point, and named keeps none elsewhere", c.name)}
		}
	}
	return nil
}
