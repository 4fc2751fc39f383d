package history

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// The entry types (Entry.Type; zonemodel.ChangeTypes lists them).
const (
	ZoneCreated    = zonemodel.ChangeZoneCreated
	ZoneDeleted    = zonemodel.ChangeZoneDeleted
	ZoneModified   = zonemodel.ChangeZoneModified
	ZoneFrozen     = zonemodel.ChangeZoneFrozen
	ZoneThawed     = zonemodel.ChangeZoneThawed
	ZoneReloaded   = zonemodel.ChangeZoneReloaded
	ZoneAdopted    = zonemodel.ChangeZoneAdopted
	ZoneImported   = zonemodel.ChangeZoneImported
	RecordsChanged = zonemodel.ChangeRecordsChanged
)

// The sources of a change (Entry.Source).
const (
	// SourceAPI is a change the API made (any of its front ends).
	SourceAPI = zonemodel.ChangeSourceAPI
	// SourceExternal is a change made outside the API (nsupdate, another
	// tool, a zone file edited and reloaded), learnt from named.
	SourceExternal = zonemodel.ChangeSourceExternal
)

// Entry is one change of one zone: the zone model's type, which the
// front ends read. Its JSON is the body of history reads, of the event
// stream's events (the `data:` line) and of webhook payloads, unchanged.
type Entry = zonemodel.ChangeEntry

// RRset is a set of records of one owner name and type that a change
// added or removed (zonemodel.ChangeRRset).
type RRset = zonemodel.ChangeRRset

// Filter selects entries (zonemodel.ChangeFilter); its zero value
// selects every entry.
type Filter = zonemodel.ChangeFilter

// maxKeptJSON bounds the JSON kept with an entry in memory (a larger
// one is encoded again when needed).
const maxKeptJSON = 64 << 10

// Serial returns a pointer to s, for Entry.SerialBefore and SerialAfter.
func Serial(s uint32) *uint32 { return &s }

// ParseID returns the sequence number of an entry ID (a cursor).
func ParseID(id string) (uint64, bool) { return zonemodel.ParseChangeID(id) }
