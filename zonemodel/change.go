package zonemodel

// The record changes of a zone, as every front end gives them to the zone
// service (package zoneservice) and the service to its updater (package
// dnsupdate): one record added is a Record; one removed, or an RRset, a
// Removal; one record's data replaced, a Replacement; a batch applied in
// one UPDATE, a list of Change.

// Removal names what a removal deletes: one record (Value set) or the
// whole RRset of Name and Type (Value nil). The REST API's body of DELETE
// /api/v1/zones/{name}/records (apitypes.RemoveRecord) converts to it.
type Removal struct {
	// Name is the owner, as in Record.
	Name string
	// Type is the record type.
	Type string
	// Value is the data of the one record to delete; nil: every record of
	// the type at the name.
	Value *string
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16
}

// Replacement is one record's data replaced by other data: the record of
// Name and Type holding CurrentValue becomes one holding NewValue. The
// REST API's body of PUT /api/v1/zones/{name}/records
// (apitypes.UpdateRecord) converts to it.
type Replacement struct {
	// Name is the owner, as in Record.
	Name string
	// Type is the record type.
	Type string
	// CurrentValue is the data of the record to replace.
	CurrentValue string
	// NewValue is the data that replaces it.
	NewValue string
	// TTL is the new record's TTL (default: the zone's default TTL).
	TTL *uint32
	// Priority is the MX preference or SRV priority of both values.
	Priority *uint16
}

// The operations of a Change.
const (
	// OpAdd adds one record (value).
	OpAdd = "add"
	// OpRemove removes one record (value), if present.
	OpRemove = "remove"
	// OpReplace replaces the RRset of name and type with values.
	OpReplace = "replace"
	// OpDelete deletes the RRset of name and type.
	OpDelete = "delete"
)

// Change is one change of a batch; an item of the REST API's body of
// PATCH /api/v1/zones/{name}/records (apitypes.Change) converts to it.
type Change struct {
	// Op is "add", "remove", "replace" or "delete".
	Op string
	// Name is the owner, as in Record.
	Name string
	// Type is the record type.
	Type string
	// Value is the record data of add and remove.
	Value string
	// Values are the new RRset's data for replace.
	Values []string
	// TTL applies to add and replace (default: the zone's default TTL).
	TTL *uint32
	// Priority is put before each value of an MX or SRV record.
	Priority *uint16
}
