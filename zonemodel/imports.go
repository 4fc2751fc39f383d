package zonemodel

import "time"

// An import's source and results, as the zone service takes and gives
// them (package zoneservice's ImportSource, AXFRSource, Imported and
// Previewed).

// TSIGKey is the key that signs updates and zone transfers.
type TSIGKey struct {
	// Name is the key's name as named knows it, e.g. "zoneapi-update".
	Name string
	// Algorithm is the HMAC algorithm in BIND's spelling, e.g.
	// "hmac-sha256".
	Algorithm string
	// Secret is the base64 secret.
	Secret string
}

// ImportSource is where an imported zone's records come from: exactly one
// of File and AXFR.
type ImportSource struct {
	// File is a master file (RFC 1035 section 5) of the zone.
	File []byte
	// AXFR is a server to transfer the zone from.
	AXFR *AXFRSource
}

// AXFRSource is a server to transfer a zone from (RFC 5936).
type AXFRSource struct {
	// Address is the server's host:port.
	Address string
	// Key, if set, signs the transfer (TSIG, RFC 8945).
	Key *TSIGKey
	// Timeout bounds each message (the whole transfer:
	// dnsupdate.MaxTransferTime); default 10 s.
	Timeout time.Duration
}

// Imported describes a zone made by Import or Copy.
type Imported struct {
	Created
	// Records is the number of records of the zone, SOA included.
	Records int
	// Serial is the SOA serial.
	Serial uint32
	// CheckedBy is what checked the zone: "named-checkzone" (BIND's own
	// checker, with named's defaults for a primary zone) or "zoneapi"
	// (this package's checks, when named-checkzone is not installed).
	CheckedBy string
	// Warnings are the checker's warnings (named loads the zone anyway).
	Warnings []string
}

// Previewed is what an import would create (PreviewImport, PreviewCopy):
// the zone's count, serial and checker as Import answers them, and its
// records as the checker wrote them.
type Previewed struct {
	Imported
	// RRsets are the zone's records, in DNSSEC canonical order.
	RRsets []RRset
}
