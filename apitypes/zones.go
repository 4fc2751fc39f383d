package apitypes

import "time"

// CreateZone is the body of POST /zones (bindcar's).
type CreateZone struct {
	// ZoneName is the zone's name, e.g. example.com (a trailing dot is
	// accepted).
	ZoneName string `json:"zoneName"`
	// ZoneType is primary or secondary (master and slave are accepted as
	// aliases).
	ZoneType string `json:"zoneType"`
	// ZoneConfig is the zone's content and options; required for primaries.
	ZoneConfig *ZoneConfig `json:"zoneConfig,omitempty"`
	// UpdateKeyName is the TSIG key allowed to update the zone; the
	// server's update key when empty.
	UpdateKeyName string `json:"updateKeyName,omitempty"`
}

// ZoneConfig is a zone's content and options.
type ZoneConfig struct {
	// TTL is the default TTL ($TTL), 1 to 2147483647 seconds.
	TTL uint32 `json:"ttl,omitempty"`
	// SOA is the SOA record's data.
	SOA *SOA `json:"soa,omitempty"`
	// NameServers are the apex NS names.
	NameServers []string `json:"nameServers,omitempty"`
	// NameServerIPs map glue host names inside the zone to an IPv4 (A) or
	// IPv6 (AAAA) address.
	NameServerIPs map[string]string `json:"nameServerIps,omitempty"`
	// Records are the zone's initial records.
	Records []Record `json:"records,omitempty"`
	// AlsoNotify are servers to NOTIFY besides the NS: "ip", "ip:port" or
	// "[v6]:port".
	AlsoNotify []string `json:"alsoNotify,omitempty"`
	// AllowTransfer are the addresses ("ip") or networks ("ip/len")
	// allowed to transfer the zone.
	AllowTransfer []string `json:"allowTransfer,omitempty"`
	// Primaries are a secondary zone's primaries, as AlsoNotify.
	Primaries []string `json:"primaries,omitempty"`
	// DNSSECPolicy is the BIND dnssec-policy to sign with.
	DNSSECPolicy string `json:"dnssecPolicy,omitempty"`
	// InlineSigning sets BIND's inline-signing option when present.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
}

// SOA is a zone's SOA data. A nil timer or serial takes the server's
// default; a zero one is zero.
type SOA struct {
	// PrimaryNS is the MNAME.
	PrimaryNS string `json:"primaryNs"`
	// AdminEmail is the RNAME, in DNS mailbox form
	// ("hostmaster.example.com.") or e-mail form ("hostmaster@example.com").
	AdminEmail string `json:"adminEmail"`
	// Serial is the first serial; a date-based one (YYYYMMDDnn) when nil.
	Serial *uint32 `json:"serial,omitempty"`
	// Refresh is the SOA refresh in seconds (default 3600).
	Refresh *uint32 `json:"refresh,omitempty"`
	// Retry is the SOA retry in seconds (default 600).
	Retry *uint32 `json:"retry,omitempty"`
	// Expire is the SOA expire in seconds (default 604800).
	Expire *uint32 `json:"expire,omitempty"`
	// NegativeTTL is the SOA minimum, the negative caching TTL in seconds
	// (default 86400).
	NegativeTTL *uint32 `json:"negativeTtl,omitempty"`
}

// ZoneInfo is a zone's state: bindcar's ZoneInfo fields (name, zoneType,
// serial, filePath) plus the state parsed from rndc zonestatus.
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
	// LastLoaded is when named last loaded it, as named prints it.
	LastLoaded string `json:"lastLoaded,omitempty"`
	// Managed tells whether the zone was created or adopted through the
	// API.
	Managed *bool `json:"managed,omitempty"`
	// View is the view of named the zone is in; absent on a server
	// without views configured.
	View string `json:"view,omitempty"`
	// Source is where the zone's configuration comes from: "named.conf",
	// "nzd" (the new-zone database: `rndc addzone` outside the API) or
	// "api" (created or adopted through the API) (GET only).
	Source string `json:"source,omitempty"`
	// Config is the zone's configuration from showzone (GET only).
	Config *ZoneSettings `json:"config,omitempty"`
	// Capabilities say what the API can do with the zone, and why not
	// (GET only).
	Capabilities *ZoneCapabilities `json:"capabilities,omitempty"`
}

// ZoneCapabilities say what the API can do with a zone, each worked out
// as the operation itself would decide it.
type ZoneCapabilities struct {
	// Records: changing its records (POST, PUT, DELETE, PATCH
	// /records): a primary zone whose allow-update or update-policy
	// grants the API's update key, not frozen.
	Records Capability `json:"records"`
	// Modify: changing its configuration (PATCH, modzone): not a zone of
	// named.conf.
	Modify Capability `json:"modify"`
	// Delete: deleting it (DELETE, delzone): not a zone of named.conf;
	// a zone the API does not manage needs confirm=unmanaged.
	Delete Capability `json:"delete"`
	// Adopt: bringing it under management (POST /adopt): a zone of the
	// new-zone database the API does not manage.
	Adopt Capability `json:"adopt"`
	// Retransfer: transferring it again (POST /retransfer): secondary,
	// mirror and stub zones.
	Retransfer Capability `json:"retransfer"`
}

// Capability says whether the API can do one thing with a zone.
type Capability struct {
	// Allowed is true when the operation can succeed on the zone as it
	// is.
	Allowed bool `json:"allowed"`
	// Reason says why not, or what the operation needs.
	Reason string `json:"reason,omitempty"`
}

// AdoptResponse is the answer of POST /zones/{name}/adopt.
type AdoptResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's answer to the modzone that granted the update
	// key, if one was sent.
	Details string `json:"details"`
	// Granted is the clause the adoption added to the zone (by
	// modzone), when grantUpdateKey asked for it and the zone lacked it.
	Granted string `json:"granted,omitempty"`
}

// AdoptRefusal is the 409 of an adoption of a zone configured in
// named.conf: the error body plus what to add to named.conf.
type AdoptRefusal struct {
	// Error is the HTTP reason phrase: Conflict.
	Error string `json:"error"`
	// Message says why, and what to do.
	Message string `json:"message"`
	// Clause is the clause to add to the zone's statement in named.conf
	// so that the API's update key may change its records (empty when
	// it has one, or the zone is not a primary).
	Clause string `json:"clause,omitempty"`
	// Statement is the zone's statement with that clause.
	Statement string `json:"statement,omitempty"`
}

// ZoneResponse is the bindcar-compatible answer of zone commands (create,
// delete, reload, freeze, thaw, retransfer, status).
type ZoneResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's output.
	Details string `json:"details"`
	// Zone is the zone's state, where the command reports it.
	Zone *ZoneInfo `json:"zone,omitempty"`
	// Location is the Location header of a create; the Go client fills
	// it.
	Location string `json:"-"`
}

// ZoneEntry is a zone in a list: a managed zone (name, type, created),
// and with all=true any zone named serves (view, managed, source,
// serial too).
type ZoneEntry struct {
	// Name is the zone's name.
	Name string `json:"name"`
	// Type is primary or secondary (with all=true, any type of named's).
	Type string `json:"type"`
	// Created is when the API created or adopted it (absent for a zone
	// it does not manage).
	Created time.Time `json:"created,omitzero"`
	// View is the view of named the zone is in: absent on a server
	// without views configured, except with all=true (then "_default"
	// on a server without views).
	View string `json:"view,omitempty"`
	// Managed tells whether the zone was created or adopted through the
	// API (all=true).
	Managed *bool `json:"managed,omitempty"`
	// Source is where its configuration comes from: named.conf, nzd or
	// api (all=true; absent while named could not be asked).
	Source string `json:"source,omitempty"`
	// Serial is its SOA serial as of the inventory's last refresh
	// (all=true; absent when named has not loaded it).
	Serial *uint32 `json:"serial,omitempty"`
}

// ZonePage is one page of GET /zones. Zones and Count keep bindcar's shape;
// Items, Total and NextCursor add paging.
type ZonePage struct {
	// Zones are the page's zone names.
	Zones []string `json:"zones"`
	// Count is the number of zones on the page.
	Count int `json:"count"`
	// Total is the number of zones the request selects (managed ones,
	// or with all=true every zone named serves, after the filters).
	Total int `json:"total"`
	// Items are the page's zones with their type and creation time.
	Items []ZoneEntry `json:"items"`
	// NextCursor asks for the next page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
}

// ZoneSettings is a zone's configuration as named's showzone reports it,
// in the notation ModifyZone accepts, so a client can compare it with what
// it asked for.
type ZoneSettings struct {
	// Type is primary, secondary, ...
	Type string `json:"type"`
	// File is the zone file.
	File string `json:"file,omitempty"`
	// Primaries are the servers a secondary transfers from.
	Primaries []string `json:"primaries,omitempty"`
	// AlsoNotify are the servers sent NOTIFY besides the NS targets.
	AlsoNotify []string `json:"alsoNotify,omitempty"`
	// AllowTransfer is who may transfer the zone.
	AllowTransfer []string `json:"allowTransfer,omitempty"`
	// AllowUpdate is who may update the zone.
	AllowUpdate []string `json:"allowUpdate,omitempty"`
	// UpdatePolicy is the update-policy clause as named prints it.
	UpdatePolicy string `json:"updatePolicy,omitempty"`
	// DNSSECPolicy is the zone's dnssec-policy.
	DNSSECPolicy string `json:"dnssecPolicy,omitempty"`
	// InlineSigning is the inline-signing clause, when set.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
	// Options holds every clause as named prints it, keyed by name.
	Options map[string]string `json:"options"`
	// Statement is showzone's text.
	Statement string `json:"statement"`
}

// ModifyZone is the body of PATCH /zones/{name}: bindcar's alsoNotify,
// allowTransfer and allowUpdate, plus primaries, dnssecPolicy and
// inlineSigning. At least one field must be given; a field that is absent
// (or null) leaves its clause as it is, and every clause the request does
// not name is kept exactly as named shows it.
//
// Server lists (alsoNotify, primaries) take "ip", "ip:port" or
// "[v6]:port", each optionally followed by " key NAME" (a TSIG key).
// Address lists (allowTransfer, allowUpdate) take "ip", "ip/len", "!ip",
// "!ip/len", "key NAME", "any", "none", "localhost" or "localnets"; when
// such a list names no key, the key grants the clause already has are
// kept (bindcar drops them), so "[]" removes every address but keeps the
// keys. An empty server list removes the clause; dnssecPolicy "" removes
// the clause.
type ModifyZone struct {
	// AlsoNotify replaces the servers sent NOTIFY besides the NS targets.
	AlsoNotify *[]string `json:"alsoNotify,omitempty"`
	// AllowTransfer replaces the addresses allowed to transfer the zone
	// (key grants are kept unless the list names keys itself).
	AllowTransfer *[]string `json:"allowTransfer,omitempty"`
	// AllowUpdate replaces the addresses allowed to update the zone, as
	// AllowTransfer.
	AllowUpdate *[]string `json:"allowUpdate,omitempty"`
	// Primaries replaces the servers a secondary zone transfers from.
	Primaries *[]string `json:"primaries,omitempty"`
	// DNSSECPolicy sets the zone's dnssec-policy; "" removes it.
	DNSSECPolicy *string `json:"dnssecPolicy,omitempty"`
	// InlineSigning sets inline-signing yes or no.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
}

// ModifyZoneResponse is the answer of PATCH /zones/{name}: bindcar's
// fields plus the configuration named reports after the change.
type ModifyZoneResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's text.
	Details string `json:"details"`
	// Config is the configuration named reports after the change.
	Config *ZoneSettings `json:"config,omitempty"`
}

// NotifyResponse is the answer of POST /zones/{name}/notify: bindcar's
// fields, the serial announced and the servers notified.
type NotifyResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's text.
	Details string `json:"details"`
	// Serial is the SOA serial the NOTIFY carried.
	Serial uint32 `json:"serial"`
	// Servers are the servers the API notified itself.
	Servers []NotifiedServer `json:"servers"`
}

// NotifiedServer is one server a zone's NOTIFY went to.
type NotifiedServer struct {
	// Server is "ip:port".
	Server string `json:"server"`
	// Source says why it was notified: "also-notify" (the zone's
	// configuration) or "catalog" (the catalog option's also_notify).
	Source string `json:"source"`
	// Acknowledged is true when the server answered the NOTIFY with
	// NOERROR (RFC 1996 section 4.7).
	Acknowledged bool `json:"acknowledged"`
	// Rcode is the server's answer (e.g. NOERROR, REFUSED, NOTAUTH), or
	// empty when none came.
	Rcode string `json:"rcode,omitempty"`
	// Error says why no answer came.
	Error string `json:"error,omitempty"`
}
