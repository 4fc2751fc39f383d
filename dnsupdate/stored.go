package dnsupdate

import (
	"strconv"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

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

// Stored describes rr (one of ChangeResult.Records) in presentation form.
func Stored(rr dns.RR) StoredRecord {
	h := rr.Header()
	t := dns.TypeToString[h.Rrtype]
	if t == "" {
		t = "TYPE" + strconv.Itoa(int(h.Rrtype))
	}
	return StoredRecord{Name: h.Name, Type: t, TTL: h.Ttl, Value: zonemodel.RDataText(rr)}
}
