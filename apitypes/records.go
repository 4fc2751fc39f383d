package apitypes

// Record is one record to add: the body of POST /zones/{name}/records, and
// an item of a zone's initial records in CreateZone.
type Record struct {
	// Name is the owner: "@", a name relative to the zone, or an absolute
	// name inside it.
	Name string `json:"name"`
	// Type is the record type, e.g. "A", "TXT" or "TYPE65534"
	// (case-insensitive).
	Type string `json:"type"`
	// Value is the record data in master-file form, e.g. "192.0.2.1" or
	// "10 mail.example.com.". A TXT value that does not start with a double
	// quote is one literal string.
	Value string `json:"value"`
	// TTL is the record's TTL in seconds; the zone's default when nil.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// RemoveRecord is the body of DELETE /zones/{name}/records (bindcar's,
// plus priority): one record, or the whole RRset of Name and Type.
type RemoveRecord struct {
	// Name is the owner, as in Record.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the data of the one record to delete; nil deletes every
	// record of the type at the name.
	Value *string `json:"value,omitempty"`
	// Priority is the MX preference or SRV priority put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// UpdateRecord is the body of PUT /zones/{name}/records: it replaces one
// record's data in one UPDATE message.
type UpdateRecord struct {
	// Name is the owner, as in Record.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// CurrentValue is the data of the record to replace.
	CurrentValue string `json:"currentValue"`
	// NewValue is the data that replaces it.
	NewValue string `json:"newValue"`
	// TTL is the new record's TTL; the zone's default when nil.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority of both values.
	Priority *uint16 `json:"priority,omitempty"`
}

// Batch change operations (Change.Op).
const (
	// OpAdd adds one record (Value).
	OpAdd = "add"
	// OpRemove removes one record (Value), if present.
	OpRemove = "remove"
	// OpReplace makes the RRset of Name and Type exactly Values.
	OpReplace = "replace"
	// OpDelete deletes the RRset of Name and Type.
	OpDelete = "delete"
)

// Change is one change of a batch: an item of BatchRequest.
type Change struct {
	// Op is OpAdd, OpRemove, OpReplace or OpDelete.
	Op string `json:"op"`
	// Name is the owner, as in Record.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the record data of add and remove.
	Value string `json:"value,omitempty"`
	// Values are the new RRset's data for replace.
	Values []string `json:"values,omitempty"`
	// TTL applies to add and replace; the zone's default when nil.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is put before each value of an MX or SRV record.
	Priority *uint16 `json:"priority,omitempty"`
}

// BatchRequest is the body of PATCH /zones/{name}/records: changes applied
// in order as one UPDATE message, all or nothing.
type BatchRequest struct {
	// Changes are the changes, applied in order.
	Changes []Change `json:"changes"`
}

// RecordChange is the answer of a single-record change (POST, PUT,
// DELETE /zones/{name}/records): bindcar's {success, message, details}
// plus the record as stored and the zone's serial after the change.
type RecordChange struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details echo the zone and the request.
	Details RecordChangeDetails `json:"details"`
	// Record is the record as named stores it (add and update only).
	Record *StoredRecord `json:"record,omitempty"`
	// Serial is the zone's SOA serial the change produced.
	Serial *uint32 `json:"serial,omitempty"`
	// ETag is the answer's ETag header (the quoted serial); the Go client
	// fills it.
	ETag string `json:"-"`
}

// RecordChangeDetails echo a single-record change, as bindcar does.
type RecordChangeDetails struct {
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Record is the request as received, with the stored TTL and the
	// priority where they apply.
	Record map[string]any `json:"record"`
}

// StoredRecord is a record as named stores it.
type StoredRecord struct {
	// Name is the absolute owner name.
	Name string `json:"name"`
	// Type is the type mnemonic.
	Type string `json:"type"`
	// TTL is the TTL applied.
	TTL uint32 `json:"ttl"`
	// Value is the canonical record data.
	Value string `json:"value"`
}

// BatchResult is the answer of PATCH /zones/{name}/records.
type BatchResult struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Changes is the number of changes applied.
	Changes int `json:"changes"`
	// OldSerial is the zone's serial before the batch.
	OldSerial uint32 `json:"oldSerial"`
	// Serial is the zone's serial after it.
	Serial uint32 `json:"serial"`
	// ETag is the answer's ETag header; the Go client fills it.
	ETag string `json:"-"`
}

// RRset is the set of records of one name and type.
type RRset struct {
	// Name is the absolute, lower-case owner name.
	Name string `json:"name"`
	// Type is the type mnemonic, e.g. "A" or "TYPE65534".
	Type string `json:"type"`
	// TTL is the RRset's TTL.
	TTL uint32 `json:"ttl"`
	// Values are the records' data in master-file form.
	Values []string `json:"values"`
}

// RecordPage is one page of GET /zones/{name}/records.
type RecordPage struct {
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Serial is the serial of the zone snapshot the page comes from.
	Serial uint32 `json:"serial"`
	// RRsets are the page's RRsets, in canonical order.
	RRsets []RRset `json:"rrsets"`
	// Count is len(RRsets).
	Count int `json:"count"`
	// NextCursor asks for the next page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
	// ETag is the answer's ETag header (the quoted serial); the Go client
	// fills it.
	ETag string `json:"-"`
	// NotModified is true when the request's If-None-Match still matched
	// (HTTP 304): the page is then empty. The Go client sets it.
	NotModified bool `json:"-"`
}
