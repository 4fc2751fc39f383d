package zonemodel

import "time"

// ZoneStatus is the parsed output of "rndc zonestatus".
type ZoneStatus struct {
	// Raw is the unparsed text.
	Raw string
	// Name and Type are the zone's name and type ("primary", "secondary",
	// ...).
	Name, Type string
	// Files are the zone's file and any included files.
	Files []string
	// Serial is the zone's serial; HasSerial says whether named printed
	// one (it does not for a zone that is not loaded).
	Serial    uint32
	HasSerial bool
	// SignedSerial is the serial of the signed version of an
	// inline-signed zone.
	SignedSerial uint32
	// Nodes is the number of nodes in the zone's database.
	Nodes int
	// LastLoaded is when the zone was last loaded, as printed.
	LastLoaded string
	// Loaded is true when the zone has a serial or a load time.
	Loaded bool
	// Secure is "secure: yes" (DNSSEC-signed); Dynamic is "dynamic: yes"
	// (accepts updates); Frozen is "frozen: yes"; InlineSigning is
	// "inline signing: yes".
	Secure, Dynamic, Frozen, InlineSigning bool
	// Reconfigurable is "reconfigurable via modzone: yes" (the zone was
	// added with addzone).
	Reconfigurable bool
	// Fields holds every "key: value" line.
	Fields map[string]string
}

// IndexEntry is one managed zone in the index.
type IndexEntry struct {
	// Name is the canonical zone name.
	Name string `json:"name"`
	// Type is the zone's type, TypePrimary or TypeSecondary.
	Type string `json:"type"`
	// Created is when the zone was created.
	Created time.Time `json:"created"`
	// Fingerprint identifies the create request that made the zone, so
	// that a retry of the same request is recognised; empty for zones
	// indexed otherwise. It is not part of the API's answers.
	Fingerprint string `json:"-"`
	// File is the zone's file when it is not the zone directory's: a zone
	// adopted with its file elsewhere ("" for the zones the API created).
	File string `json:"-"`
}

// ZoneState is what named and the index tell of a zone.
type ZoneState struct {
	// Status is named's zonestatus, nil when named knows the zone but
	// has not loaded it (a secondary before its first transfer, or a
	// zone whose file failed to load).
	Status *ZoneStatus
	// Entry is the zone's index entry, when Managed.
	Entry IndexEntry
	// Managed is true for a zone created through the API.
	Managed bool
	// File is the zone's file in the zone directory (where a zone
	// created through the API has it).
	File string
	// Details is named's text: zonestatus's output, or why the zone is
	// not loaded.
	Details string
}

// Capability says whether the API can do one thing with a zone, and why
// not.
type Capability struct {
	// Allowed is true when the operation can succeed on the zone as it
	// is (it may still fail for reasons of the moment: named down, the
	// zone frozen meanwhile).
	Allowed bool
	// Reason says why not, or what the operation needs (a confirmation).
	Reason string
}

// Capabilities are what the API can do with a zone, each checked the way
// the operation itself checks it, so that a client never learns it by
// failing.
type Capabilities struct {
	// Records: changing its records (RFC 2136 updates signed with the
	// update key).
	Records Capability
	// Modify: changing its configuration (PATCH, modzone).
	Modify Capability
	// Delete: deleting it (delzone).
	Delete Capability
	// Adopt: bringing it under management.
	Adopt Capability
	// Retransfer: transferring it again from its primaries.
	Retransfer Capability
}
