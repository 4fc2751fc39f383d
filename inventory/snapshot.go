package inventory

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Snapshot is the inventory at one time: its zones sorted by name, then
// view. It does not change once published: Forget publishes a new one,
// which shares the zones of the one before and hides the zones dropped
// (O(1) a Forget, whatever the number of zones).
//
// Memory: a zone is a row of 32 bytes and its name, its view, type and
// source an index into the snapshot's table of those strings (rows), where
// a Zone takes 72 bytes (7.2 MB at 100,000 zones beside 3.2 MB).
type Snapshot struct {
	rows
	// Taken is when named was asked.
	Taken time.Time
	// Views are the views named has, sorted (without _bind).
	Views []string
	// Gen numbers the snapshots of named's answers (and of the sources
	// learned since), from 1; Forget keeps it.
	Gen uint64
	// Forgotten are the names Forget dropped from this snapshot since
	// named was asked, in order.
	Forgotten []string
	// Kept is true for a snapshot read from what an earlier process
	// kept (Load), not from named since this one started: as old as that
	// process's last refresh, and replaced by a refresh as soon as one
	// lands (see Fresh for a caller that needs named's present serials).
	Kept bool

	asked time.Time // when the read of named began (zero: kept)
	// changed are the names it changed from the snapshots before it
	// (ChangedSince), nil when not known.
	changed *changeLog
	fg      *forgets // shared by the snapshots of one read of named
	nGone   int      // how many of fg's entries this snapshot hides
}

// forgets are the zones Forget dropped since named was last read, shared
// by the snapshots Forget publishes: append-only, each snapshot hiding
// the first nGone entries.
type forgets struct {
	mu    sync.RWMutex
	at    map[forgetKey]int // position of the first Forget of a zone (view "": every view)
	names []string          // the names, in order
}

type forgetKey struct{ name, view string }

// NewSnapshot returns a snapshot of zones (sorted by name, then view, as
// Parse returns them) and views, for callers that build one (tests).
func NewSnapshot(zones []Zone, views []string) *Snapshot {
	return &Snapshot{rows: compact(zones), Views: views}
}

// rows are a snapshot's zones: each a row, its strings but the name in
// one table.
type rows struct {
	rs   []row
	strs []string // the rows' views, types and sources (strs[0] is "")
}

type row struct {
	name           string
	serial         uint32
	view, typ, src uint16 // into strs
	has            bool
}

// compact returns the rows of zones.
func compact(zones []Zone) rows {
	r := rows{rs: make([]row, len(zones)), strs: []string{""}}
	at := map[string]uint16{"": 0}
	in := func(s string) uint16 {
		if i, ok := at[s]; ok {
			return i
		}
		if len(r.strs) > 1<<16-1 {
			// Never so many views: the string is not kept.
			return 0
		}
		i := uint16(len(r.strs))
		r.strs = append(r.strs, s)
		at[s] = i
		return i
	}
	for i := range zones {
		z := &zones[i]
		r.rs[i] = row{name: z.Name, serial: z.Serial, view: in(z.View), typ: in(z.Type), src: in(z.Source), has: z.HasSerial}
	}
	return r
}

// zone returns the zone of row i.
func (r *rows) zone(i int) Zone {
	w := &r.rs[i]
	return Zone{Name: w.name, View: r.strs[w.view], Type: r.strs[w.typ], Serial: w.serial, HasSerial: w.has, Source: r.strs[w.src]}
}

// gone reports whether Forget dropped z from s.
func (s *Snapshot) gone(z *Zone) bool {
	if s.nGone == 0 {
		return false
	}
	s.fg.mu.RLock()
	defer s.fg.mu.RUnlock()
	i, ok := s.fg.at[forgetKey{z.Name, z.View}]
	if j, ok2 := s.fg.at[forgetKey{z.Name, ""}]; ok2 && (!ok || j < i) {
		i, ok = j, true
	}
	return ok && i < s.nGone
}

// Asked is when the read of named this snapshot holds began (Taken for a
// snapshot kept by an earlier process): a zone added to named after it
// may be missing from the snapshot, one added before it is not.
func (s *Snapshot) Asked() time.Time {
	if s.asked.IsZero() {
		return s.Taken
	}
	return s.asked
}

// Zones returns the snapshot's zones, sorted by name then view: a copy,
// O(zones) (Each walks them without it).
func (s *Snapshot) Zones() []Zone {
	out := make([]Zone, 0, len(s.rs))
	s.Each(func(z *Zone) { out = append(out, *z) })
	return out
}

// Each calls fn for each zone of the snapshot that Forget did not drop,
// in order, without the copy Zones makes: fn must not keep z.
func (s *Snapshot) Each(fn func(z *Zone)) {
	var z Zone
	for i := range s.rs {
		z = s.zone(i)
		if !s.gone(&z) {
			fn(&z)
		}
	}
}

// Named returns the snapshot's zones of one name (one per view that
// serves it), in order of view: O(log zones).
func (s *Snapshot) Named(name string) []Zone {
	first, _ := slices.BinarySearchFunc(s.rs, name, func(w row, n string) int { return strings.Compare(w.name, n) })
	var out []Zone
	for i := first; i < len(s.rs) && s.rs[i].name == name; i++ {
		if z := s.zone(i); !s.gone(&z) {
			out = append(out, z)
		}
	}
	return out
}

// Find returns the zone of the snapshot of that name in that view.
func (s *Snapshot) Find(name, view string) (Zone, bool) {
	i := s.find(name, view)
	if i < 0 {
		return Zone{}, false
	}
	z := s.zone(i)
	if s.gone(&z) {
		return Zone{}, false
	}
	return z, true
}

// find returns the index of the zone in s.rs (gone or not), or -1.
func (s *Snapshot) find(name, view string) int {
	i, ok := slices.BinarySearchFunc(s.rs, name, func(w row, n string) int { return strings.Compare(w.name, n) })
	if !ok {
		return -1
	}
	for ; i < len(s.rs) && s.rs[i].name == name; i++ {
		if s.strs[s.rs[i].view] == view {
			return i
		}
	}
	return -1
}

// ChangedSince returns the names whose zones differ between the
// snapshot of Gen gen, one published before s, and s (a zone added,
// gone, or of another type, serial or source; the zones Forget hid in
// either are not counted: see Forgotten), each once, in order: what
// someone who followed that snapshot has to look at again. ok is false
// when they are not known: gen is not among the last snapshots (at most
// changedDepth of them), or they changed more than changedMax zones, or
// s is the first or a kept one.
func (s *Snapshot) ChangedSince(gen uint64) (names []string, ok bool) {
	if gen == s.Gen {
		return nil, true
	}
	for c := s.changed; c != nil; c = c.before {
		names = append(names, c.names...)
		if c.prev == gen {
			slices.Sort(names)
			return slices.Compact(names), true
		}
	}
	return nil, false
}

// changeLog is what a snapshot changed from the one before it (of Gen
// prev), and through before what that one changed: a chain of at most
// changedDepth links and changedMax names.
type changeLog struct {
	prev   uint64
	names  []string
	before *changeLog
}

// changedMax is the most names a snapshot of n zones keeps of what it
// and those before it changed: beyond, following it costs about what
// reading it whole does. changedDepth is the most snapshots it keeps
// them of.
func changedMax(n int) int { return 1000 + n/8 }

const changedDepth = 16

// changes collects what a snapshot changed, in order.
type changes struct{ names []string }

// add notes name (names come in order: each is kept once).
func (c *changes) add(name string) {
	if k := len(c.names); k == 0 || c.names[k-1] != name {
		c.names = append(c.names, name)
	}
}

// after returns the change log of a snapshot of n zones that follows
// old with these changes (nil past changedMax(n)), chained to the newest
// links of old's that keep the chain within changedMax names and
// changedDepth links (those copied, their names shared, when older ones
// are left out).
func (c *changes) after(old *Snapshot, n int) *changeLog {
	if old == nil || len(c.names) > changedMax(n) {
		return nil
	}
	var keep []*changeLog
	total, whole := len(c.names), true
	for b := old.changed; b != nil; b = b.before {
		if len(keep) == changedDepth-1 || total+len(b.names) > changedMax(n) {
			whole = false
			break
		}
		keep = append(keep, b)
		total += len(b.names)
	}
	before := old.changed
	if !whole {
		before = nil
		for i := len(keep) - 1; i >= 0; i-- {
			before = &changeLog{prev: keep[i].prev, names: keep[i].names, before: before}
		}
	}
	return &changeLog{prev: old.Gen, names: slices.Clip(c.names), before: before}
}

// sameAs reports whether row j holds z (its name and view compared
// already): its type, serial and source.
func (r *rows) sameAs(j int, z *Zone) bool {
	w := &r.rs[j]
	return w.serial == z.Serial && w.has == z.HasSerial && r.strs[w.typ] == z.Type && r.strs[w.src] == z.Source
}
