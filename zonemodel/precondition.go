package zonemodel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"
)

// A conditional apply (frontend.ConditionalApplier) changes a zone's
// records only while conditions on its RRsets hold, checked by named
// atomically with the changes: the RFC 2136 prerequisites (section 2.4)
// that the external-dns webhook's provider needs. Its names and record
// data are absolute: read as master-file text whose origin is the root
// (ParseRootRecord), as external-dns's own RFC 2136 provider writes
// records.

// Precondition is one condition of a conditional apply on the RRset of
// Name and Type.
type Precondition struct {
	// Name is the owner, an absolute name.
	Name string
	// Type is the type mnemonic, e.g. "A".
	Type string
	// Exists: the RRset exists, with exactly the records of Values
	// (RFC 2136 "RRset exists (value dependent)"), or with any records
	// when Values is empty ("value independent"). Otherwise the RRset
	// does not exist ("RRset does not exist"; Values unused).
	Exists bool
	// Values are the records' data in master-file form, names taken from
	// the root.
	Values []string
}

// RRsetExists is the precondition that the RRset of name and type holds
// exactly the records of values.
func RRsetExists(name, typ string, values []string) Precondition {
	return Precondition{Name: name, Type: typ, Exists: true, Values: values}
}

// RRsetAbsent is the precondition that there is no RRset of name and
// type.
func RRsetAbsent(name, typ string) Precondition {
	return Precondition{Name: name, Type: typ}
}

// ErrMoreThanOneRecord is ParseRootRecord's error for a value that holds
// more than one record.
var ErrMoreThanOneRecord = errors.New("more than one record")

// ParseRootRecord reads the record "<name> <ttl> IN <typ> <value>" as
// master-file text whose origin is the root: a name in value without its
// final dot is absolute all the same; $INCLUDE is refused. Errors: the
// parser's when the text is no record, ErrMoreThanOneRecord when it is
// more than one.
func ParseRootRecord(name string, ttl uint32, typ, value string) (dns.RR, error) {
	zp := dns.NewZoneParser(strings.NewReader(fmt.Sprintf("%s %d IN %s %s\n", name, ttl, typ, value)), ".", "")
	zp.SetIncludeAllowed(false)
	rr, ok := zp.Next()
	if !ok || zp.Err() != nil {
		if err := zp.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("no record")
	}
	if _, more := zp.Next(); more {
		return nil, ErrMoreThanOneRecord
	}
	return rr, nil
}

// RootRecordOwner checks the record as ParseRootRecord reads it and
// returns its owner name as read. (The TTL matters to a parse error's
// text only: it names the column.)
func RootRecordOwner(name string, ttl uint32, typ, value string) (string, error) {
	rr, err := ParseRootRecord(name, ttl, typ, value)
	if err != nil {
		return "", err
	}
	return rr.Header().Name, nil
}

// TXTText is the bytes of a TXT record's data in master-file form (its
// character-strings unescaped and concatenated), as one string; the data
// is assumed valid (an RRset's values): "" when it is not.
func TXTText(value string) string {
	rr, err := ParseRootRecord(".", 0, "TXT", value)
	if err != nil {
		return ""
	}
	t, ok := rr.(*dns.TXT)
	if !ok {
		return ""
	}
	return txtdata.Join(t.Txt)
}

// IsDomainName reports whether s is a domain name in presentation form
// (miekg/dns's dns.IsDomainName: labels of at most 63 bytes, 255 in all,
// escapes allowed).
func IsDomainName(s string) bool {
	_, ok := dns.IsDomainName(s)
	return ok
}

// Fqdn returns s with a final dot (miekg/dns's dns.Fqdn: an escaped dot
// is not one).
func Fqdn(s string) string { return dns.Fqdn(s) }
