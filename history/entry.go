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

// appendLine appends e's JSON (without the newline) to buf and returns
// the entry as written: e, or, when its line would be longer than Read
// and Open read back (maxLine with its newline: a change of many large
// RRsets), e shrunk to fit, without its records' data, else without its
// RRsets.
func appendLine(buf []byte, e Entry) ([]byte, Entry, error) {
	start := len(buf)
	out, err := e.AppendJSON(buf)
	for _, names := range []bool{true, false} {
		if err != nil || len(out)-start < maxLine {
			break
		}
		e = shrunk(e, names)
		out, err = e.AppendJSON(out[:start])
	}
	return out, e, err
}

// shrunk is e for an entry whose JSON line would be too long to be read
// back (longer than maxLine): its RRsets without their records' data
// (names and types kept, as for an RRset deleted whose data is not
// known) when names is set, else without its RRsets at all (its serials
// still say that the zone changed, as an external change named sent as
// a whole zone does). The caller's RRsets are not changed.
func shrunk(e Entry, names bool) Entry {
	strip := func(sets []RRset) []RRset {
		if !names || sets == nil {
			return nil
		}
		out := make([]RRset, len(sets))
		for i, s := range sets {
			s.Records = []string{}
			out[i] = s
		}
		return out
	}
	e.Added, e.Removed = strip(e.Added), strip(e.Removed)
	return e
}

// Serial returns a pointer to s, for Entry.SerialBefore and SerialAfter.
func Serial(s uint32) *uint32 { return &s }

// ParseID returns the sequence number of an entry ID (a cursor).
func ParseID(id string) (uint64, bool) { return zonemodel.ParseChangeID(id) }
