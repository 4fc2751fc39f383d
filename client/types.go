package client

import "time"

// Record is one record to add: the body of POST /zones/{name}/records, and
// an item of a zone's initial records in CreateZone.
type Record struct {
	// Name is the owner: "@", a name relative to the zone, or an absolute
	// name inside it.
	Name string `json:"name"`
	// Type is the record type, e.g. "A", "TXT" or "TYPE65534".
	Type string `json:"type"`
	// Value is the record data in master-file form. A TXT value that does
	// not start with a double quote is one literal string.
	Value string `json:"value"`
	// TTL is the record's TTL in seconds; the zone's default when nil.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// RemoveRecord is the body of DELETE /zones/{name}/records.
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

// Change is one change of a batch (PATCH /zones/{name}/records).
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

// batchRequest is the body of PATCH /zones/{name}/records.
type batchRequest struct {
	Changes []Change `json:"changes"`
}

// RecordChange is the answer of a single-record change (POST, PUT,
// DELETE /zones/{name}/records).
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
	// ETag is the answer's ETag header (the quoted serial).
	ETag string `json:"-"`
}

// RecordChangeDetails echo a single-record change, as bindcar does.
type RecordChangeDetails struct {
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Record is the request as received.
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
	// ETag is the answer's ETag header.
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
	// ETag is the answer's ETag header (the quoted serial).
	ETag string `json:"-"`
	// NotModified is true when the request's IfNoneMatch still matched
	// (HTTP 304): the page is then empty.
	NotModified bool `json:"-"`
}

// ListRecordsOptions select and page GET /zones/{name}/records.
type ListRecordsOptions struct {
	// Name keeps only this owner name.
	Name string
	// Type keeps only this type.
	Type string
	// Limit is the page size (1-1000); the server's default when 0.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
	// IfNoneMatch is an ETag of an earlier read: an unchanged zone then
	// answers RecordPage.NotModified.
	IfNoneMatch string
}

// ZoneInfo is a zone's state, from rndc zonestatus.
type ZoneInfo struct {
	// Name is the zone's name.
	Name string `json:"name"`
	// ZoneType is primary, secondary, ...
	ZoneType string `json:"zoneType"`
	// Serial is the SOA serial.
	Serial *uint32 `json:"serial,omitempty"`
	// FilePath is the zone file.
	FilePath string `json:"filePath,omitempty"`
	// State is active or frozen.
	State string `json:"state,omitempty"`
	// Dynamic tells whether the zone accepts dynamic updates.
	Dynamic *bool `json:"dynamic,omitempty"`
	// Secure tells whether the zone is DNSSEC-signed.
	Secure *bool `json:"secure,omitempty"`
	// Loaded tells whether named has loaded the zone.
	Loaded *bool `json:"loaded,omitempty"`
	// Nodes is the number of names in the zone.
	Nodes *int `json:"nodes,omitempty"`
	// LastLoaded is when named last loaded it.
	LastLoaded string `json:"lastLoaded,omitempty"`
	// Managed tells whether the zone was created through the API.
	Managed *bool `json:"managed,omitempty"`
	// Config is the zone's configuration from showzone (GetZone only).
	Config *ZoneSettings `json:"config,omitempty"`
}

// ZoneResponse is the answer of zone commands (create, delete, reload,
// freeze, thaw, notify, status).
type ZoneResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's output.
	Details string `json:"details"`
	// Zone is the zone's state, where the command reports it.
	Zone *ZoneInfo `json:"zone,omitempty"`
	// Location is the Location header of a create.
	Location string `json:"-"`
}

// ZoneEntry is a managed zone in a list.
type ZoneEntry struct {
	// Name is the zone's name.
	Name string `json:"name"`
	// Type is primary or secondary.
	Type string `json:"type"`
	// Created is when the API created it.
	Created time.Time `json:"created"`
}

// ZonePage is one page of GET /zones.
type ZonePage struct {
	// Zones are the page's zone names.
	Zones []string `json:"zones"`
	// Count is the number of zones on the page.
	Count int `json:"count"`
	// Total is the number of managed zones (of the type asked for).
	Total int `json:"total"`
	// Items are the page's zones with their type and creation time.
	Items []ZoneEntry `json:"items"`
	// NextCursor asks for the next page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
}

// ListZonesOptions page GET /zones.
type ListZonesOptions struct {
	// Limit is the page size (1-1000); the server's default when 0.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
	// Type keeps only primary or secondary zones.
	Type string
}

// CreateZone is the body of POST /zones (bindcar's).
type CreateZone struct {
	// ZoneName is the zone's name, e.g. example.com.
	ZoneName string `json:"zoneName"`
	// ZoneType is primary or secondary.
	ZoneType string `json:"zoneType"`
	// ZoneConfig is the zone's content and options; required for primaries.
	ZoneConfig *ZoneConfig `json:"zoneConfig,omitempty"`
	// UpdateKeyName is the TSIG key allowed to update the zone.
	UpdateKeyName string `json:"updateKeyName,omitempty"`
}

// ZoneConfig is a zone's content and options.
type ZoneConfig struct {
	// TTL is the default TTL ($TTL).
	TTL uint32 `json:"ttl,omitempty"`
	// SOA is the SOA record's data.
	SOA *SOA `json:"soa,omitempty"`
	// NameServers are the apex NS names.
	NameServers []string `json:"nameServers,omitempty"`
	// NameServerIPs are glue addresses of in-zone name servers.
	NameServerIPs map[string]string `json:"nameServerIps,omitempty"`
	// Records are the zone's initial records.
	Records []Record `json:"records,omitempty"`
	// AlsoNotify are addresses to NOTIFY besides the NS.
	AlsoNotify []string `json:"alsoNotify,omitempty"`
	// AllowTransfer are the addresses allowed to transfer the zone.
	AllowTransfer []string `json:"allowTransfer,omitempty"`
	// Primaries are a secondary zone's primaries.
	Primaries []string `json:"primaries,omitempty"`
	// DNSSECPolicy is the dnssec-policy to sign with.
	DNSSECPolicy string `json:"dnssecPolicy,omitempty"`
	// InlineSigning turns inline-signing on.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
}

// SOA is a zone's SOA data.
type SOA struct {
	// PrimaryNS is the MNAME.
	PrimaryNS string `json:"primaryNs"`
	// AdminEmail is the RNAME, as a mailbox or an address.
	AdminEmail string `json:"adminEmail"`
	// Serial is the first serial; a date-based one when zero.
	Serial uint32 `json:"serial,omitempty"`
	// Refresh is the SOA refresh in seconds.
	Refresh uint32 `json:"refresh,omitempty"`
	// Retry is the SOA retry in seconds.
	Retry uint32 `json:"retry,omitempty"`
	// Expire is the SOA expire in seconds.
	Expire uint32 `json:"expire,omitempty"`
	// NegativeTTL is the SOA minimum (negative caching TTL).
	NegativeTTL uint32 `json:"negativeTtl,omitempty"`
}

// Health is the answer of GET /health.
type Health struct {
	// Status is "healthy".
	Status string `json:"status"`
	// Version is the module's version.
	Version string `json:"version"`
}

// Readiness is the answer of GET /ready.
type Readiness struct {
	// Ready is true when every check passed.
	Ready bool `json:"ready"`
	// Checks lists each failed check as "<name>: <detail>".
	Checks []string `json:"checks"`
}
