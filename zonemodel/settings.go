package zonemodel

// SettingsChange is a change of a zone's settings, the clauses of its
// statement in named's configuration (the body of PATCH
// /api/v1/zones/{name}): bindcar's alsoNotify, allowTransfer and
// allowUpdate, plus primaries, dnssecPolicy and inlineSigning. At least one field must be given; a field that is
// absent (or null) leaves its clause as it is, and every clause the
// request does not name is kept exactly as named shows it.
//
// Server lists (alsoNotify, primaries) take "ip", "ip:port" or
// "[v6]:port", each optionally followed by " key NAME" (a TSIG key).
// Address lists (allowTransfer, allowUpdate) take "ip", "ip/len", "!ip",
// "!ip/len", "key NAME", "any", "none", "localhost" or "localnets"; when
// such a list names no key, the key grants the clause already has are
// kept (bindcar drops them), so "[]" removes every address but keeps the
// keys. An empty server list removes the clause; dnssecPolicy "" removes
// the clause.
type SettingsChange struct {
	// AlsoNotify replaces the servers sent NOTIFY besides the NS targets.
	AlsoNotify *[]string
	// AllowTransfer replaces the addresses allowed to transfer the zone
	// (key grants are kept unless the list names keys itself).
	AllowTransfer *[]string
	// AllowUpdate replaces the addresses allowed to update the zone (key
	// grants are kept unless the list names keys itself).
	AllowUpdate *[]string
	// Primaries replaces the servers a secondary zone transfers from.
	Primaries *[]string
	// DNSSECPolicy sets the zone's dnssec-policy; "" removes it.
	DNSSECPolicy *string
	// InlineSigning sets inline-signing yes or no.
	InlineSigning *bool
	// CheckNames sets check-names (fail, warn or ignore: what named does
	// with names that are not host names, such as an A record at
	// _x.example.com); "" removes the clause (named's default, fail for
	// a primary zone). The PowerDNS API's RFC1123-CONFORMANCE metadata
	// sets it; the zone API's PATCH does not take it.
	CheckNames *string
}

// ZoneSettings are a zone's settings: its statement as showzone reports it, in
// the API's notation (apitypes.ZoneSettings; the same as SettingsChange's),
// so a client can compare it with what it asked for.
type ZoneSettings struct {
	Type          string
	File          string
	Primaries     []string
	AlsoNotify    []string
	AllowTransfer []string
	AllowUpdate   []string
	UpdatePolicy  string
	DNSSECPolicy  string
	InlineSigning *bool
	// Options holds every clause as named prints it, keyed by name.
	Options map[string]string
	// Statement is showzone's text.
	Statement string
}

// Modified is what the zone service's Modify did.
type Modified struct {
	// Details is named's answer to modzone.
	Details string
	// Config is the zone's configuration after the change, nil when it
	// could not be read back.
	Config *ZoneSettings
}

// Notified is what the zone service's Notify did.
type Notified struct {
	// Details is named's answer to `rndc notify`.
	Details string
	// Serial is the serial announced: that of the SOA named serves.
	Serial uint32
	// Servers are the servers notified by the service itself, each with
	// its answer.
	Servers []NotifyResult
}

// NotifyResult is one server's answer to a NOTIFY.
type NotifyResult struct {
	// Server is "ip:port".
	Server string
	// Source says why it was notified: "also-notify" (the zone's
	// configuration) or "catalog" (the catalog option's also_notify).
	Source string
	// Acknowledged is true when the server answered the NOTIFY with
	// NOERROR (RFC 1996 section 4.7).
	Acknowledged bool
	// Rcode is the server's answer (e.g. NOERROR, REFUSED, NOTAUTH) or
	// empty when none came.
	Rcode string
	// Error says why no answer came.
	Error string
}
