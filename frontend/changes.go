package frontend

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// The change history as the events endpoints read it (package history's
// *Log implements every interface here). Sequence numbers (an entry's
// Seq, its ID in decimal) are global to a zone directory, strictly
// increasing, never reused and kept across restarts.

// ChangeReader reads the change history.
type ChangeReader interface {
	// Read returns the entries with Seq greater than after that f
	// selects (f.Match: the entry as selected), oldest first, at most
	// limit of them (limit <= 0: 1000); only entries made durable are
	// read. Entries that retention dropped are skipped silently (compare
	// ChangeBounds.First with after+1). Errors: a segment file cannot
	// be read or holds a line that is not an entry (500). Read-only, so
	// idempotent.
	Read(after uint64, f zonemodel.ChangeFilter, limit int) ([]zonemodel.ChangeEntry, error)
}

// ChangeWatcher tells of new changes.
type ChangeWatcher interface {
	// Changed returns a channel closed at the next append that made
	// entries durable: take it, Read, and wait on it for more. It never
	// fails.
	Changed() <-chan struct{}
}

// ChangeBounds are the history's ends.
type ChangeBounds interface {
	// Last returns the highest Seq made durable, 0 when the history
	// never had an entry.
	Last() uint64
	// First returns the lowest Seq the history still holds (retention
	// drops older ones), Last()+1 when it holds none.
	First() uint64
}

// ZoneLives tell a zone from an earlier one of the same name.
type ZoneLives interface {
	// Born returns the Seq of the first entry of the zone's current
	// life (its latest creation or import, or the adoption that followed
	// its deletion):
	// entries before it are of an earlier zone of the same name. It is 0
	// when the history holds no start of a life of the zone. It never
	// fails.
	Born(zone, view string) uint64
}

// ChangeSizer measures the history on disk.
type ChangeSizer interface {
	// Size returns the bytes of the history on disk and the number of
	// its segment files. It never fails.
	Size() (bytes int64, segments int)
}

// ChangeLog is the change history of one zone directory as the event
// stream, the webhooks' delivery and the pages of changes read it.
type ChangeLog interface {
	ChangeReader
	ChangeWatcher
	ChangeBounds
	ZoneLives
}
