package module

import "github.com/zoneapi/caddy-zoneapi/dnsupdate"

// Request bodies of the record endpoints. Each has the fields of the domain
// type it converts to (dnsupdate.Removal and so on, or zonestore.Record),
// plus their JSON names; TestRequestBodiesMatchSpec checks them against
// the served specification.

// addRecordRequest is the body of POST /api/v1/zones/{name}/records
// (bindcar-compatible).
type addRecordRequest struct {
	// Name is the owner: "@", a name relative to the zone, or an absolute
	// name inside the zone ("www.example.com" and "www.example.com." both
	// mean www.example.com. in zone example.com).
	Name string `json:"name"`
	// Type is the record type, e.g. "A", "MX" or "TYPE65534"
	// (case-insensitive).
	Type string `json:"type"`
	// Value is the record data in master-file form; see zonestore.Record.Value.
	Value string `json:"value"`
	// TTL is the record's TTL; the zone's default TTL (its SOA record's
	// TTL) applies when absent.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// removeRecordRequest is the body of DELETE /api/v1/zones/{name}/records.
// Without Value the whole RRset of Name and Type is deleted.
type removeRecordRequest struct {
	// Name is the owner, as in addRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the data of the one record to delete; absent: every record
	// of the type at the name.
	Value *string `json:"value,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value (an
	// addition to bindcar, where Value must carry it).
	Priority *uint16 `json:"priority,omitempty"`
}

// updateRecordRequest is the body of PUT /api/v1/zones/{name}/records: it
// replaces one record's data in one UPDATE message, on the condition that
// the current value exists.
type updateRecordRequest struct {
	// Name is the owner, as in addRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// CurrentValue is the data of the record to replace.
	CurrentValue string `json:"currentValue"`
	// NewValue is the data that replaces it.
	NewValue string `json:"newValue"`
	// TTL is the new record's TTL (default: the zone's default TTL).
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority of both values.
	Priority *uint16 `json:"priority,omitempty"`
}

// batchRequest is the body of PATCH /api/v1/zones/{name}/records: changes
// applied in order as one UPDATE message, all or nothing.
type batchRequest struct {
	// Changes are the changes, applied in order.
	Changes []changeRequest `json:"changes"`
}

// changeRequest is one change of a batchRequest (dnsupdate.Change).
type changeRequest struct {
	// Op is "add", "remove", "replace" or "delete".
	Op string `json:"op"`
	// Name is the owner, as in addRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the record data of add and remove.
	Value string `json:"value,omitempty"`
	// Values are the new RRset's data for replace.
	Values []string `json:"values,omitempty"`
	// TTL applies to add and replace (default: the zone's default TTL).
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is put before each value of an MX or SRV record.
	Priority *uint16 `json:"priority,omitempty"`
}

// changes converts the batch to its domain form.
func (b *batchRequest) changes() []dnsupdate.Change {
	out := make([]dnsupdate.Change, len(b.Changes))
	for i, c := range b.Changes {
		out[i] = dnsupdate.Change(c)
	}
	return out
}
