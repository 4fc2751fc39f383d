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
type Snapshot struct {
	zones []Zone
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
	fg    *forgets  // shared by the snapshots of one read of named
	nGone int       // how many of fg's entries this snapshot hides
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
	return &Snapshot{zones: zones, Views: views}
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

// Zones returns the snapshot's zones, sorted by name then view: shared,
// not to be changed (a copy when Forget dropped some, O(zones)).
func (s *Snapshot) Zones() []Zone {
	if s.nGone == 0 {
		return s.zones
	}
	out := make([]Zone, 0, len(s.zones))
	for i := range s.zones {
		if !s.gone(&s.zones[i]) {
			out = append(out, s.zones[i])
		}
	}
	return out
}

// Each calls fn for each zone of the snapshot that Forget did not drop,
// in order, without the copy Zones makes once Forget dropped some: fn
// must not change z nor keep it.
func (s *Snapshot) Each(fn func(z *Zone)) {
	for i := range s.zones {
		if !s.gone(&s.zones[i]) {
			fn(&s.zones[i])
		}
	}
}

// Named returns the snapshot's zones of one name (one per view that
// serves it), in order of view: O(log zones).
func (s *Snapshot) Named(name string) []Zone {
	first, _ := slices.BinarySearchFunc(s.zones, name, func(z Zone, n string) int { return strings.Compare(z.Name, n) })
	last := first
	for last < len(s.zones) && s.zones[last].Name == name {
		last++
	}
	out := s.zones[first:last:last]
	if s.nGone == 0 {
		return out
	}
	var live []Zone
	for i := range out {
		if !s.gone(&out[i]) {
			live = append(live, out[i])
		}
	}
	return live
}

// Find returns the zone of the snapshot of that name in that view.
func (s *Snapshot) Find(name, view string) (*Zone, bool) {
	i := s.find(name, view)
	if i < 0 || s.gone(&s.zones[i]) {
		return nil, false
	}
	return &s.zones[i], true
}

// find returns the index of the zone in s.zones (gone or not), or -1.
func (s *Snapshot) find(name, view string) int {
	i, ok := slices.BinarySearchFunc(s.zones, Zone{Name: name, View: view}, func(a, b Zone) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.View, b.View)
	})
	if !ok {
		return -1
	}
	return i
}
