package zonemodel

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// The change history's entries, as the front ends read them (package
// history records them: history.Entry is ChangeEntry).

// The entry types (ChangeEntry.Type).
const (
	ChangeZoneCreated    = "zone.created"
	ChangeZoneDeleted    = "zone.deleted"
	ChangeZoneModified   = "zone.modified"
	ChangeZoneFrozen     = "zone.frozen"
	ChangeZoneThawed     = "zone.thawed"
	ChangeZoneReloaded   = "zone.reloaded"
	ChangeZoneAdopted    = "zone.adopted"
	ChangeZoneImported   = "zone.imported"
	ChangeRecordsChanged = "records.changed"
)

// ChangeTypes lists every entry type, in the order of the documentation.
var ChangeTypes = []string{ChangeZoneCreated, ChangeZoneDeleted, ChangeZoneModified, ChangeZoneFrozen, ChangeZoneThawed, ChangeZoneReloaded, ChangeZoneAdopted, ChangeZoneImported, ChangeRecordsChanged}

// The sources of a change (ChangeEntry.Source).
const (
	// ChangeSourceAPI is a change the API made (any of its front ends).
	ChangeSourceAPI = "api"
	// ChangeSourceExternal is a change made outside the API (nsupdate, another
	// tool, a zone file edited and reloaded), learnt from named.
	ChangeSourceExternal = "external"
)

// ChangeEntry is one change of one zone. Its JSON is the body of history reads,
// of the event stream's events (the `data:` line) and of webhook
// payloads, unchanged.
type ChangeEntry struct {
	// ID is the entry's cursor: Seq in decimal. The event stream's id and
	// the webhooks' webhook-id derive from it.
	ID string `json:"id"`
	// Seq is the entry's sequence number: global, strictly increasing,
	// never reused, kept across restarts. Append sets it.
	Seq uint64 `json:"-"`
	// Time is when the change was recorded (RFC 3339 with zone).
	Time time.Time `json:"time"`
	// Zone is the zone's name as the REST API writes it: no final dot
	// ("example.com").
	Zone string `json:"zone"`
	// View is the zone's view, if it is in one other than the default.
	View string `json:"view,omitempty"`
	// Type is what changed: one of ChangeTypes.
	Type string `json:"type"`
	// Source is ChangeSourceAPI or ChangeSourceExternal.
	Source string `json:"source"`
	// Identity is who asked, as the audit log line names it; empty for an
	// external change.
	Identity string `json:"identity,omitempty"`
	// Frontend is the front end that asked: rest, powerdns, externaldns or
	// caddydns (empty for an external change).
	Frontend string `json:"frontend,omitempty"`
	// RequestID is the request's id as the front end logged it.
	RequestID string `json:"request_id,omitempty"`
	// SerialBefore and SerialAfter are the zone's SOA serial before and
	// after the change, where known.
	SerialBefore *uint32 `json:"serial_before,omitempty"`
	SerialAfter  *uint32 `json:"serial_after,omitempty"`
	// Added and Removed are the RRsets (or the records of an ChangeRRset) the
	// change added and removed.
	Added   []ChangeRRset `json:"added,omitempty"`
	Removed []ChangeRRset `json:"removed,omitempty"`

	// rec is the entry as the history recorded it, with its JSON line,
	// so that the events of an entry unchanged since need no encoding of
	// their own (JSON; Recorded sets it).
	rec *recorded
}

// recorded is an ChangeEntry as recorded and its JSON.
type recorded struct {
	e    ChangeEntry // rec nil
	json []byte
}

// Recorded returns e with line, its JSON as the history wrote it, kept
// for JSON to return while e is unchanged; a nil line keeps none.
func (e ChangeEntry) Recorded(line []byte) ChangeEntry {
	e.rec = nil
	if line != nil {
		e.rec = &recorded{e: e, json: line}
	}
	return e
}

// RecordedJSON is the JSON kept with e by Recorded (nil when none was),
// whether or not e is still as recorded.
func (e ChangeEntry) RecordedJSON() []byte {
	if e.rec == nil {
		return nil
	}
	return e.rec.json
}

// JSON returns the entry's JSON: the bytes the history wrote when the entry
// is as recorded (the history's read of its newest entries keeps them),
// else a new encoding. The bytes must not be modified.
func (e ChangeEntry) JSON() ([]byte, error) {
	if r := e.rec; r != nil && r.e.same(e) {
		return r.json, nil
	}
	e.rec = nil
	return json.Marshal(e)
}

// same reports whether e and o are the same entry: the same fields,
// sharing their RRsets (whose contents are never changed in place).
func (e ChangeEntry) same(o ChangeEntry) bool {
	sameRRsets := func(a, b []ChangeRRset) bool {
		return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
	}
	return e.ID == o.ID && e.Seq == o.Seq && e.Time.Equal(o.Time) && e.Zone == o.Zone && e.View == o.View &&
		e.Type == o.Type && e.Source == o.Source && e.Identity == o.Identity && e.Frontend == o.Frontend &&
		e.RequestID == o.RequestID && sameSerial(e.SerialBefore, o.SerialBefore) && sameSerial(e.SerialAfter, o.SerialAfter) &&
		sameRRsets(e.Added, o.Added) && sameRRsets(e.Removed, o.Removed)
}

func sameSerial(a, b *uint32) bool {
	return a == b || a != nil && b != nil && *a == *b
}

// ChangeRRset is a set of records of one owner name and type: the records a
// change added to it or removed from it (not necessarily the whole ChangeRRset).
type ChangeRRset struct {
	// Name is the owner, absolute without its final dot
	// ("www.example.com"), as Zone.
	Name string `json:"name"`
	// Type is the record type ("A", "TXT", "TYPE65534").
	Type string `json:"type"`
	// TTL is the records' TTL.
	TTL uint32 `json:"ttl"`
	// Records are the records' data in master-file form (empty, never
	// null, for an ChangeRRset deleted whose data is not known).
	Records []string `json:"records"`
}

// ChangeFilter selects entries; its zero value selects every entry. Names and
// zones are compared without case and without a final dot.
type ChangeFilter struct {
	// Zones, if not empty, are the zones whose entries are selected.
	Zones []string
	// Zone, if set, is the one zone whose entries are selected.
	Zone string
	// View, if set, selects the entries of that view only.
	View string
	// Name, if set, selects the entries that added or removed records
	// of this owner name, with only those RRsets kept.
	Name string
	// Type, if set, selects the entries that added or removed records of
	// this record type, with only those RRsets kept.
	Type string
	// Types, if not empty, are the entry types (ChangeEntry.Type) selected.
	Types []string
	// Keep, if set, is applied last to each entry the other fields
	// select, in order (it may keep state): it returns the entry as
	// shown (e.g. with only some RRsets) and whether to show it.
	Keep func(ChangeEntry) (ChangeEntry, bool)
}

// Match reports whether the filter selects e, and returns e as selected
// (with only the RRsets of Name and Type when they are set).
func (f *ChangeFilter) Match(e ChangeEntry) (ChangeEntry, bool) {
	if f.Zone != "" && !sameName(f.Zone, e.Zone) {
		return e, false
	}
	if len(f.Zones) > 0 {
		ok := false
		for _, z := range f.Zones {
			if sameName(z, e.Zone) {
				ok = true
				break
			}
		}
		if !ok {
			return e, false
		}
	}
	if f.View != "" && f.View != e.View {
		return e, false
	}
	if len(f.Types) > 0 {
		ok := false
		for _, t := range f.Types {
			if t == e.Type {
				ok = true
				break
			}
		}
		if !ok {
			return e, false
		}
	}
	if f.Name != "" || f.Type != "" {
		var ok bool
		if e, ok = e.Only(func(r ChangeRRset) bool {
			return (f.Name == "" || sameName(f.Name, r.Name)) && (f.Type == "" || strings.EqualFold(f.Type, r.Type))
		}); !ok {
			return e, false
		}
	}
	if f.Keep != nil {
		return f.Keep(e)
	}
	return e, true
}

// Only returns e with only the RRsets keep keeps, and whether any is
// left. An entry that changed no records is never kept.
func (e ChangeEntry) Only(keep func(ChangeRRset) bool) (ChangeEntry, bool) {
	sel := func(in []ChangeRRset) []ChangeRRset {
		var out []ChangeRRset
		for _, r := range in {
			if keep(r) {
				out = append(out, r)
			}
		}
		return out
	}
	e.Added, e.Removed = sel(e.Added), sel(e.Removed)
	return e, len(e.Added)+len(e.Removed) > 0
}

// sameName compares two DNS names without case and final dot.
func sameName(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
}

// ParseChangeID returns the sequence number of an entry ID (a cursor).
func ParseChangeID(id string) (uint64, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	return n, err == nil
}
