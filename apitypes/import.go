package apitypes

// ImportZone is the JSON body of POST /zones/{name}/import: exactly one
// of ZoneFile, AXFR and CopyOf. A zone file may be sent instead as the
// body itself, with Content-Type text/dns (RFC 4027), up to 64 MiB; as
// JSON the body is limited to 1 MiB like every other.
type ImportZone struct {
	// ZoneFile is a master file of the zone (RFC 1035 section 5).
	ZoneFile *string `json:"zoneFile,omitempty"`
	// AXFR is a server to transfer the zone from.
	AXFR *ImportAXFR `json:"axfr,omitempty"`
	// CopyOf is a zone managed here to copy under the new name.
	CopyOf string `json:"copyOf,omitempty"`
}

// ImportAXFR is a server to transfer a zone from (RFC 5936), with the
// TSIG key it wants, if any.
type ImportAXFR struct {
	// Address is the server: "ip", "ip:port" or "[v6]:port" (port 53 when
	// none is given).
	Address string `json:"address"`
	// TSIG is the key that signs the transfer.
	TSIG *TSIGKey `json:"tsig,omitempty"`
}

// TSIGKey is a TSIG key (RFC 8945) as BIND writes one.
type TSIGKey struct {
	// Name is the key's name, e.g. transfer-key.
	Name string `json:"name"`
	// Algorithm is hmac-sha256 (the default), hmac-sha1, hmac-sha224,
	// hmac-sha384, hmac-sha512 or hmac-md5.
	Algorithm string `json:"algorithm,omitempty"`
	// Secret is the key's base64 secret.
	Secret string `json:"secret"`
}

// ImportResult is the answer of an import: the zone made, with its
// record count and serial.
type ImportResult struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's output.
	Details string `json:"details"`
	// Zone is the zone made.
	Zone *ZoneInfo `json:"zone,omitempty"`
	// Records is the number of records of the zone, SOA included.
	Records int `json:"records"`
	// Serial is the zone's SOA serial.
	Serial uint32 `json:"serial"`
	// CheckedBy is what checked the zone: named-checkzone, or zoneapi
	// when named-checkzone is not installed.
	CheckedBy string `json:"checkedBy,omitempty"`
	// Warnings are the checker's warnings (the zone was imported).
	Warnings []string `json:"warnings,omitempty"`
}

// ImportPreview is the answer of an import's dry run (?dryRun=true):
// the zone the import would make, which was not made.
type ImportPreview struct {
	// DryRun is true: nothing was written.
	DryRun bool `json:"dryRun"`
	// Message says what would be done.
	Message string `json:"message"`
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Records is the number of records the zone would have, SOA
	// included.
	Records int `json:"records"`
	// Serial is the SOA serial it would have.
	Serial uint32 `json:"serial"`
	// CheckedBy is what checked the zone, as in ImportResult.
	CheckedBy string `json:"checkedBy,omitempty"`
	// Warnings are the checker's warnings.
	Warnings []string `json:"warnings,omitempty"`
	// RRsets are the zone's records as the checker wrote them, in DNSSEC
	// canonical order, as GET /zones/{name}/records answers them.
	RRsets []RRset `json:"rrsets"`
}

// FileError is the 400 of an import whose zone is refused: the error
// body and the line of the zone file the problem is on.
type FileError struct {
	// Error is the HTTP reason phrase: Bad Request.
	Error string `json:"error"`
	// Message says what is wrong, starting "line N: " when Line is set.
	Message string `json:"message"`
	// Line is the line of the zone file (1-based), when the problem is on
	// one.
	Line int `json:"line,omitempty"`
}
