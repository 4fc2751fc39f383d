package zonemodel

// RRset is the records sharing an owner name and a type, as the zone
// service reads them from a zone (one zone transfer): what a front end
// lists and serves.
type RRset struct {
	// Name is the owner, an absolute lower-case name.
	Name string `json:"name"`
	// Type is the type mnemonic, e.g. "A" or "TYPE65534".
	Type string `json:"type"`
	// TTL is the RRset's TTL.
	TTL uint32 `json:"ttl"`
	// Values are the records' data in master-file form.
	Values []string `json:"values"`
}
