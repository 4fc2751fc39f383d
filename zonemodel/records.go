package zonemodel

import (
	"strconv"

	"github.com/miekg/dns"
)

// A record change's result and a record listing's options, as the zone
// service passes them (package dnsupdate's ChangeResult, StoredRecord
// and ListOptions).

// ChangeResult describes an applied change.
type ChangeResult struct {
	// Zone is the canonical zone name.
	Zone string
	// Records are the records added, as stored (absolute owner, TTL).
	Records []dns.RR
	// OldSerial is the serial the change was applied to, when known
	// (batches and conditional changes).
	OldSerial uint32
	// HasOldSerial tells whether OldSerial is known.
	HasOldSerial bool
	// Serial is the zone's serial right after the change (a concurrent
	// change may already be included).
	Serial uint32
	// HasSerial tells whether Serial could be read.
	HasSerial bool
	// Changes is the number of changes (records added or removed, RRsets
	// deleted) in the UPDATE message.
	Changes int
}

// StoredRecord returns the i-th record added (Records[i]) in
// presentation form, so that a front end reads it without the DNS wire
// types.
func (r *ChangeResult) StoredRecord(i int) StoredRecord { return StoredOf(r.Records[i]) }

// StoredRecord is a record as named stores it, in presentation form.
type StoredRecord struct {
	// Name is the owner, an absolute name.
	Name string
	// Type is the type mnemonic, e.g. "A" or "TYPE65534".
	Type string
	// TTL is the record's TTL.
	TTL uint32
	// Value is the record's data in master-file form.
	Value string
}

// StoredOf describes rr (one of ChangeResult.Records) in presentation form.
func StoredOf(rr dns.RR) StoredRecord {
	h := rr.Header()
	t := dns.TypeToString[h.Rrtype]
	if t == "" {
		t = "TYPE" + strconv.Itoa(int(h.Rrtype))
	}
	return StoredRecord{Name: h.Name, Type: t, TTL: h.Ttl, Value: RDataText(rr)}
}

// ListOptions filters and pages a record listing.
type ListOptions struct {
	// Name keeps only RRsets owned by this absolute name, when not empty.
	Name string
	// Type keeps only RRsets of this type, when not 0.
	Type uint16
	// Limit is the page size (at least 1).
	Limit int
	// Cursor is the NextCursor of the previous page, or "".
	Cursor string
	// Keep, when set, keeps only the RRsets it returns true for (the
	// caller's scope). It is applied before the page is cut, so a page
	// and its cursor only ever come from RRsets it keeps.
	Keep func(name string, rrtype uint16) bool
}
