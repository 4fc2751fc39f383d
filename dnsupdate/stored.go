package dnsupdate

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// StoredRecord is a record as named stores it, in presentation form
// (zonemodel.StoredRecord; zonemodel.StoredOf describes one of
// ChangeResult.Records).
type StoredRecord = zonemodel.StoredRecord
