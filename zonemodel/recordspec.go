package zonemodel

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/miekg/dns"
)

// NormalizeRecordName resolves a record name of the record endpoints in
// the canonical zone: "@" is the apex; a name ending in '.' is absolute; a
// name that is the zone name or ends in ".<zone>" is absolute too (as in
// bindcar, but on a label boundary); any other name is relative. It returns
// the lower-case absolute name, or an error for invalid or out-of-zone
// names.
func NormalizeRecordName(name, zone string) (string, error) {
	origin := Origin(zone)
	fqdn, msg := resolveName(absoluteIfInZone(name, origin), origin, true)
	if msg != "" {
		return "", errors.New(msg)
	}
	if !inZone(fqdn, origin) {
		return "", fmt.Errorf("%s is outside the zone %s", fqdn, origin)
	}
	return fqdn, nil
}

// ParseRecordType validates a record type of the record endpoints and
// returns its number.
func ParseRecordType(t string) (uint16, error) {
	if msg := checkRecordType(t); msg != "" {
		return 0, errors.New(msg)
	}
	n, _ := lookupType(strings.ToUpper(t))
	return n, nil
}

// IsSOAType reports whether t names the SOA type.
func IsSOAType(t string) bool {
	t = strings.ToUpper(strings.TrimSpace(t))
	return t == "SOA" || t == "TYPE6"
}

// ParseRecord validates one record of the record endpoints against the
// zone (canonical name) and returns it as a dns.RR; defaultTTL applies
// when TTL is nil. Problems are reported under field (e.g. "changes[3]"),
// with the value's field named valueField ("value", "newValue").
func ParseRecord(zone string, defaultTTL uint32, name, typ, value string, ttl *uint32, priority *uint16, field, valueField string) (dns.RR, error) {
	ve := &ValidationError{}
	rr := ParseRecordInto(zone, defaultTTL, name, typ, value, ttl, priority, field, valueField, ve)
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return rr, nil
}

// ParseRecordInto is ParseRecord adding its problems to ve (without
// repeating one already there); it returns nil when the record is invalid.
func ParseRecordInto(zone string, defaultTTL uint32, name, typ, value string, ttl *uint32, priority *uint16, field, valueField string, ve *ValidationError) dns.RR {
	sub := &ValidationError{}
	rr := parseRecord(&Record{Name: name, Type: typ, Value: value, TTL: ttl, Priority: priority}, Origin(zone), defaultTTL, "", true, sub)
	if rr != nil {
		// The wire form is what named stores and answers: round-trip
		// through it so the record reads back exactly as named gives it.
		w, err := canonicalOwned(rr)
		if err != nil {
			sub.add(".value", "%q is not valid %s data: %v", value, strings.ToUpper(typ), err)
			rr = nil
		} else {
			rr = w
		}
	}
	for _, p := range sub.Problems {
		f := strings.TrimPrefix(p.Field, ".")
		if f == "value" {
			f = valueField
		}
		if field != "" {
			f = field + "." + f
		}
		dup := false
		for _, q := range ve.Problems {
			if q.Field == f && q.Message == p.Message {
				dup = true
				break
			}
		}
		if !dup {
			ve.Problems = append(ve.Problems, Problem{Field: f, Message: p.Message})
		}
	}
	return rr
}

// canonical returns rr as wireRoundTrip gives it. An A or AAAA record, most
// of what is sent, is built directly in that form (the round trip only
// shortens an A's address to its 4 bytes and sets Rdlength), saving a pack
// and an unpack per record; any other record, or an address of another
// length, goes through the wire. FuzzCanonical checks that the two agree.
func canonical(rr dns.RR) (dns.RR, error) {
	switch r := rr.(type) {
	case *dns.A:
		if ip := r.A.To4(); ip != nil && r.Hdr.Rrtype == dns.TypeA {
			h := r.Hdr
			h.Rdlength = net.IPv4len
			return &dns.A{Hdr: h, A: ip}, nil
		}
	case *dns.AAAA:
		if len(r.AAAA) == net.IPv6len && r.Hdr.Rrtype == dns.TypeAAAA {
			h := r.Hdr
			h.Rdlength = net.IPv6len
			return &dns.AAAA{Hdr: h, AAAA: r.AAAA}, nil
		}
	}
	return wireRoundTrip(rr)
}

// canonicalOwned is canonical for a record that nothing else holds (one
// parseRecord just made): an A or AAAA is put in that form in place,
// without a second record per address.
func canonicalOwned(rr dns.RR) (dns.RR, error) {
	switch r := rr.(type) {
	case *dns.A:
		if ip := r.A.To4(); ip != nil && r.Hdr.Rrtype == dns.TypeA {
			r.Hdr.Rdlength, r.A = net.IPv4len, ip
			return r, nil
		}
	case *dns.AAAA:
		if len(r.AAAA) == net.IPv6len && r.Hdr.Rrtype == dns.TypeAAAA {
			r.Hdr.Rdlength = net.IPv6len
			return r, nil
		}
	}
	return canonical(rr)
}

// wireRoundTrip packs and unpacks rr, giving its canonical presentation.
func wireRoundTrip(rr dns.RR) (dns.RR, error) {
	buf := make([]byte, dns.Len(rr)+64)
	off, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		return nil, err
	}
	out, _, err := dns.UnpackRR(buf[:off], 0)
	if err != nil {
		return nil, err
	}
	out.Header().Name = rr.Header().Name
	return out, nil
}

// ParseNameType validates a record name and type of the record endpoints
// against the zone (canonical name), adding problems to ve under field.
func ParseNameType(zone, name, typ, field string, ve *ValidationError) (string, uint16) {
	pre := ""
	if field != "" {
		pre = field + "."
	}
	fqdn, err := NormalizeRecordName(name, zone)
	if err != nil {
		ve.add(pre+"name", "%s", err.Error())
	}
	t, err := ParseRecordType(typ)
	if err != nil {
		ve.add(pre+"type", "%s", err.Error())
	}
	return fqdn, t
}
