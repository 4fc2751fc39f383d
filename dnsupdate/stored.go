package dnsupdate

import (
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// StoredRecord is a record as named stores it, in presentation form
// (zonemodel.StoredRecord).
type StoredRecord = zonemodel.StoredRecord

// Stored describes rr (one of ChangeResult.Records) in presentation form
// (zonemodel.StoredOf).
func Stored(rr dns.RR) StoredRecord { return zonemodel.StoredOf(rr) }
