package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ApplyIf applies changes in order as one UPDATE of the zone, all or
// nothing, provided the preconditions hold: they are the UPDATE's RFC 2136
// prerequisites, which named checks atomically with the changes. Names
// and record data are absolute (zonemodel.ParseRootRecord); a change is
// an add (TTL set), a remove (one record by its data), a delete (the
// RRset) or a replace (the RRset deleted, Values added), without
// Priority. The message is built as ConditionalUpdate builds it and sent
// as applyUpdate sends it. A precondition that no longer holds is a
// *zonemodel.PrerequisiteError with named's rcode; the other errors are
// applyUpdate's, or a *zonemodel.ValidationError for a precondition or
// change that is not valid (nothing sent).
func (r *Records) ApplyIf(ctx context.Context, zone string, pre []zonemodel.Precondition, changes []zonemodel.Change) (*zonemodel.ChangeResult, error) {
	prereq, update, err := ConditionalUpdate(pre, changes)
	if err != nil {
		return nil, err
	}
	res, err := r.applyUpdate(ctx, zone, prereq, update)
	if err != nil {
		if rcode, ok := prerequisiteFailed(err); ok {
			return nil, &zonemodel.PrerequisiteError{Rcode: rcode, Err: err}
		}
		return nil, err
	}
	return res, nil
}

// prerequisiteFailed reports whether err is named's answer that a
// prerequisite of the UPDATE failed (RFC 2136 section 3.2: NXRRSET,
// YXRRSET, NXDOMAIN, YXDOMAIN) and, if so, that rcode's mnemonic.
func prerequisiteFailed(err error) (string, bool) {
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

// ConditionalUpdate builds the prerequisite and update sections of
// ApplyIf's UPDATE, in the order given: a precondition that the RRset
// exists is its records at TTL 0 (value dependent), or one class-ANY
// record of its type when Values is empty (value independent); one that
// it does not exist, a class-NONE record of its type; an add is its
// record; a remove, its record of class NONE at TTL 0; a delete, a
// class-ANY record of the type (a replace, that and its adds).
func ConditionalUpdate(pre []zonemodel.Precondition, changes []zonemodel.Change) (prereq, update []dns.RR, err error) {
	ve := &zonemodel.ValidationError{}
	bad := func(field, format string, args ...any) {
		ve.Problems = append(ve.Problems, zonemodel.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	record := func(field, name string, ttl uint32, typ, value string) dns.RR {
		rr, err := zonemodel.ParseRootRecord(name, ttl, typ, value)
		if err != nil {
			bad(field, "%s %s %q: %v", name, typ, value, err)
		}
		return rr
	}
	for i, p := range pre {
		field := "preconditions[" + strconv.Itoa(i) + "]"
		t, ok := typeNumber(p.Type)
		switch {
		case !ok:
			bad(field, "type %q is not a record type", p.Type)
		case !p.Exists:
			prereq = append(prereq, &dns.ANY{Hdr: dns.RR_Header{Name: dns.Fqdn(p.Name), Rrtype: t, Class: dns.ClassNONE}})
		case len(p.Values) == 0:
			prereq = append(prereq, &dns.ANY{Hdr: dns.RR_Header{Name: dns.Fqdn(p.Name), Rrtype: t, Class: dns.ClassANY}})
		default:
			for _, v := range p.Values {
				if rr := record(field, p.Name, 0, p.Type, v); rr != nil {
					prereq = append(prereq, rr)
				}
			}
		}
	}
	for i, c := range changes {
		field := "changes[" + strconv.Itoa(i) + "]"
		t, ok := typeNumber(c.Type)
		if !ok {
			bad(field, "type %q is not a record type", c.Type)
			continue
		}
		if c.Priority != nil {
			bad(field, "a conditional change has no priority: put it in the value")
			continue
		}
		del := &dns.ANY{Hdr: dns.RR_Header{Name: dns.Fqdn(c.Name), Rrtype: t, Class: dns.ClassANY}}
		switch c.Op {
		case zonemodel.OpAdd:
			if c.TTL == nil {
				bad(field, "an add needs its TTL")
			} else if rr := record(field, c.Name, *c.TTL, c.Type, c.Value); rr != nil {
				update = append(update, rr)
			}
		case zonemodel.OpRemove:
			if rr := record(field, c.Name, 0, c.Type, c.Value); rr != nil {
				rr.Header().Class, rr.Header().Ttl = dns.ClassNONE, 0
				update = append(update, rr)
			}
		case zonemodel.OpDelete:
			update = append(update, del)
		case zonemodel.OpReplace:
			if c.TTL == nil {
				bad(field, "a replace needs its TTL")
				continue
			}
			update = append(update, del)
			for _, v := range c.Values {
				if rr := record(field, c.Name, *c.TTL, c.Type, v); rr != nil {
					update = append(update, rr)
				}
			}
		default:
			bad(field, "op %q is not add, remove, replace or delete", c.Op)
		}
	}
	if len(ve.Problems) > 0 {
		return nil, nil, ve
	}
	return prereq, update, nil
}

// typeNumber is the number of a type mnemonic or of its RFC 3597 form
// (TYPE65534).
func typeNumber(typ string) (uint16, bool) {
	typ = strings.ToUpper(typ)
	if t, ok := dns.StringToType[typ]; ok {
		return t, true
	}
	if n, err := strconv.ParseUint(strings.TrimPrefix(typ, "TYPE"), 10, 16); err == nil && strings.HasPrefix(typ, "TYPE") {
		return uint16(n), true
	}
	return 0, false
}
