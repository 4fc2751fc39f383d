package zoneservice

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// listing is the list of every zone (AllZones) kept between requests:
// the inventory's snapshot joined with the indexes (walkInventory), in
// order of name then view, in bounded chunks, with the number of zones
// of each category (type, source, view, managed). A page costs its own
// zones (and those a filter skips), a total the number of categories,
// whatever the number of zones. It is built once, and follows, name by
// name, the changes of the indexes (zonestore's ChangesSince), the zones
// the inventory forgot and those each new snapshot of named's zones
// changed (the inventory's ChangedSince): O(changes). It is built again
// for a snapshot whose changes are not known (after a start from a kept
// one; past the inventory's bound): in the background, but for a list
// of at most syncRebuildMax zones.
type listing struct {
	mu     sync.Mutex
	built  bool
	gen    uint64            // the snapshot's Gen it follows
	forgot int               // how many of that snapshot's Forgotten it applied
	seqs   map[string]uint64 // the last change applied, by index ("" and each view's)
	chunks [][]listedRow
	strs   listedStrs // the rows' views, types and sources
	n      int
	counts map[category]int
	// forgotten are the names of that snapshot's Forgotten it applied.
	forgotten []string
	// rebuilding is set while a build for a new snapshot runs.
	rebuilding bool
	// visited counts the zones pages looked at and the index changes
	// applied (tests).
	visited atomic.Int64
}

// listedRow is a zone of the listing: 56 bytes and its name, its view,
// type and source an index into the listing's table of them (listedStrs),
// where a ListedZone is 96 (9.6 MB at 100,000 zones beside 5.6 MB).
type listedRow struct {
	name           string
	created        time.Time
	serial         uint32
	view, typ, src uint16
	has, managed   bool
}

// listedStrs is the table of the strings of a listing's rows, append-only
// (guarded by listing.mu once the listing is published).
type listedStrs struct {
	strs []string
	at   map[string]uint16
}

// in returns the index of s, added if new. Never 65,536 of them (views,
// types, sources): one more is not kept, and reads back as "".
func (t *listedStrs) in(s string) uint16 {
	if i, ok := t.at[s]; ok {
		return i
	}
	if t.at == nil {
		t.at = map[string]uint16{"": 0}
		t.strs = []string{""}
		if s == "" {
			return 0
		}
	}
	if len(t.strs) > 1<<16-1 {
		return 0
	}
	i := uint16(len(t.strs))
	t.strs = append(t.strs, s)
	t.at[s] = i
	return i
}

func (t *listedStrs) row(z *ListedZone) listedRow {
	return listedRow{name: z.Name, created: z.Created, serial: z.Serial, view: t.in(z.View), typ: t.in(z.Type), src: t.in(z.Source), has: z.HasSerial, managed: z.Managed}
}

func (t *listedStrs) zone(r *listedRow) ListedZone {
	return ListedZone{Name: r.name, View: t.strs[r.view], Type: t.strs[r.typ], Serial: r.serial, HasSerial: r.has, Managed: r.managed, Source: t.strs[r.src], Created: r.created}
}

// category is what ListFilter selects by, but the scope.
type category struct {
	typ, source, view string
	managed           bool
}

func categoryOf(z *ListedZone) category {
	return category{typ: z.Type, source: z.Source, view: z.View, managed: z.Managed}
}

// rebuildPage is how many index entries a join reads at a time.
const rebuildPage = 1000

// syncRebuildMax is the size of list that current joins again at once
// for a newer snapshot; a larger one is joined in the background.
const syncRebuildMax = 2000

// followMax: a new snapshot that changed more than one zone in
// followMax of the list is joined whole (as fast as joining those names
// again: some 1.3 µs a zone beside 6-10 µs a name,
// BenchmarkAllZonesFollowRefresh).
const followMax = 8

// listChunk bounds the chunks: an insert or removal moves at most
// 2*listChunk zones.
const listChunk = 128

// changeFeed is an index that reports its changes (*zonestore.Store).
type changeFeed interface {
	ChangesSince(seq uint64) ([]zonestore.Change, uint64, bool, error)
}

// indexes returns the indexes AllZones joins, by view: the service's
// Store under its View, the view it addresses (the configured default
// view), or under "" when it has none (the zones addressed without a
// view: named's default or only view). Under "" a zone created since
// the snapshot would be listed in "_default" when named has views.
func (s *Service) indexes(snap *inventory.Snapshot) (map[string]Index, error) {
	out := map[string]Index{s.View: s.Store}
	if s.ViewIndex == nil {
		return out, nil
	}
	for _, view := range snap.Views {
		idx, err := s.ViewIndex(view)
		if err != nil {
			return nil, newErr(ErrStorage, "", "", "reading the zone index of view "+view, err)
		}
		if idx != nil {
			out[view] = idx
		}
	}
	return out, nil
}

// current brings the listing up to date with snap and the indexes and
// returns it locked (the caller unlocks l.mu). The first time, and when
// an index cannot report its changes, it joins every zone; for a newer
// snapshot, the names it changed (ChangedSince), or, when those are not
// known, every zone, in the background, serving the listing it has,
// brought up to date name by name meanwhile.
func (s *Service) current(snap *inventory.Snapshot) (*listing, error) {
	l := &s.all
	idx, err := s.indexes(snap)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	changed, ok := snap.ChangedSince(l.gen)
	if l.built && snap.Gen != l.gen && ok && len(changed) <= l.n/followMax && !l.rebuilding {
		// A snapshot after the one the listing follows: the names they
		// changed are joined again at once, O(changes), whatever the
		// number of zones, where every zone was joined again (0.2-0.4 s
		// at 100,000 zones, in the background, started by the page that
		// found the snapshot new). So are the names the listing hid as
		// Forgotten of the snapshot before (this one's are below).
		again := slices.Concat(changed, l.forgotten)
		l.gen, l.forgot, l.forgotten = snap.Gen, 0, nil
		for _, name := range again {
			l.visited.Add(1)
			if err := l.rejoin(snap, idx, name); err != nil {
				l.built = false // joined whole at the next page
				l.mu.Unlock()
				return nil, err
			}
		}
	}
	if !l.built {
		l.mu.Unlock()
		if err := s.rebuild(snap, idx); err != nil {
			return nil, err
		}
		l.mu.Lock()
	} else if snap.Gen != l.gen && !l.rebuilding && l.n <= syncRebuildMax {
		// A small list is joined again at once (about a millisecond):
		// its next page shows what the newer snapshot learned (a zone's
		// source), rather than the page after the background join.
		l.mu.Unlock()
		if err := s.rebuild(snap, idx); err != nil {
			return nil, err
		}
		l.mu.Lock()
	} else if snap.Gen != l.gen && !l.rebuilding {
		l.rebuilding = true
		go func() {
			if err := s.rebuild(snap, idx); err != nil {
				s.log().Warn("joining the zones named serves with the index failed; the last list is kept")
			}
			l.mu.Lock()
			l.rebuilding = false
			l.mu.Unlock()
		}()
	}
	// The changes since: names to join again.
	names := map[string]bool{}
	if snap.Gen == l.gen {
		for _, n := range snap.Forgotten[min(l.forgot, len(snap.Forgotten)):] {
			names[n] = true
		}
		l.forgot, l.forgotten = len(snap.Forgotten), snap.Forgotten
	}
	for view, x := range idx {
		feed, ok := x.(changeFeed)
		if !ok {
			// An index that does not report its changes: every zone is
			// joined again.
			l.mu.Unlock()
			if err := s.rebuild(snap, idx); err != nil {
				return nil, err
			}
			l.mu.Lock()
			return l, nil
		}
		changes, last, ok, err := feed.ChangesSince(l.seqs[view])
		if err != nil {
			l.mu.Unlock()
			return nil, newErr(ErrStorage, "", "", "reading the zone index", err)
		}
		if !ok {
			l.mu.Unlock()
			if err := s.rebuild(snap, idx); err != nil {
				return nil, err
			}
			return s.current(snap)
		}
		for _, c := range changes {
			names[c.Entry.Name] = true
		}
		l.seqs[view] = last
	}
	for name := range names {
		l.visited.Add(1)
		if err := l.rejoin(snap, idx, name); err != nil {
			l.mu.Unlock()
			return nil, err
		}
	}
	return l, nil
}

// rebuild joins every zone of snap with the indexes and replaces the
// listing's zones with them. It holds the listing it builds and a page of
// each index at a time (walkInventory), where it held every entry of the
// indexes, a map of them and a copy of the snapshot's zones (some 30 MB
// at 100,000 zones, at each new snapshot: BenchmarkListingRebuildHeap).
func (s *Service) rebuild(snap *inventory.Snapshot, idx map[string]Index) error {
	seqs := map[string]uint64{}
	srcs := map[string]entrySource{}
	for view, x := range idx {
		if feed, ok := x.(changeFeed); ok {
			// The number first: changes after it are applied again,
			// which is idempotent.
			_, last, _, err := feed.ChangesSince(0)
			if err != nil {
				return newErr(ErrStorage, "", "", "reading the zone index", err)
			}
			seqs[view] = last
		}
		// A page at a time: the index is not held for the whole read,
		// so that requests reading it (a page's ChangesSince) do not
		// wait for a join of 100,000 zones.
		srcs[view] = &indexPages{x: x}
	}
	var chunks [][]listedRow
	var chunk []listedRow
	var strs listedStrs
	counts := map[category]int{}
	n := 0
	err := walkInventory(snap, srcs, func(z *ListedZone) {
		if len(chunk) == listChunk {
			chunks = append(chunks, chunk)
			chunk = make([]listedRow, 0, listChunk)
		}
		chunk = append(chunk, strs.row(z))
		counts[categoryOf(z)]++
		n++
	})
	if err != nil {
		return newErr(ErrStorage, "", "", "reading the zone index", err)
	}
	if len(chunk) > 0 {
		chunks = append(chunks, chunk)
	}
	l := &s.all
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.built && snap.Gen < l.gen {
		// A join of a newer snapshot (another page's, or the list
		// followed it name by name) landed while this one ran: keep
		// it, never go back to an older list.
		return nil
	}
	l.built, l.gen, l.forgot, l.forgotten, l.seqs = true, snap.Gen, len(snap.Forgotten), snap.Forgotten, seqs
	l.chunks, l.strs, l.n, l.counts = chunks, strs, n, counts
	return nil
}

// rejoin joins the zones of one name again: named's (in the current
// snapshot) with the indexes' entries of that name, as walkInventory
// does for every name. l.mu is held.
func (l *listing) rejoin(snap *inventory.Snapshot, idx map[string]Index, name string) error {
	mini := inventory.NewSnapshot(snap.Named(name), snap.Views)
	srcs := map[string]entrySource{}
	for view, x := range idx {
		e, ok, err := x.Get(name)
		if err != nil {
			return newErr(ErrStorage, name, "", "reading the zone index", err)
		}
		var one entryList
		if ok {
			one = entryList{e}
		}
		srcs[view] = &one
	}
	// Out with the name's zones, in with the joined ones.
	for {
		ci, i, found := l.find(name, "")
		if !found && (ci >= len(l.chunks) || i >= len(l.chunks[ci]) || l.chunks[ci][i].name != name) {
			break
		}
		l.removeAt(ci, i)
	}
	return walkInventory(mini, srcs, func(z *ListedZone) { l.insert(*z) })
}

// find returns where the zone (name, view) is, or would be inserted:
// chunk and position in it.
func (l *listing) find(name, view string) (ci, i int, found bool) {
	ci = sort.Search(len(l.chunks), func(k int) bool {
		c := l.chunks[k]
		z := &c[len(c)-1]
		return compareKey(z.name, l.strs.strs[z.view], name, view) >= 0
	})
	if ci == len(l.chunks) {
		return ci, 0, false
	}
	c := l.chunks[ci]
	i = sort.Search(len(c), func(k int) bool { return compareKey(c[k].name, l.strs.strs[c[k].view], name, view) >= 0 })
	return ci, i, i < len(c) && c[i].name == name && l.strs.strs[c[i].view] == view
}

// removeAt removes the zone at chunk ci, position i.
func (l *listing) removeAt(ci, i int) {
	c := l.chunks[ci]
	z := l.strs.zone(&c[i])
	l.counts[categoryOf(&z)]--
	c = slices.Delete(c, i, i+1)
	l.n--
	if len(c) == 0 {
		l.chunks = slices.Delete(l.chunks, ci, ci+1)
		return
	}
	l.chunks[ci] = c
}

// insert adds z (replacing the zone of its name and view).
func (l *listing) insert(z ListedZone) {
	l.counts[categoryOf(&z)]++
	row := l.strs.row(&z)
	if len(l.chunks) == 0 {
		l.chunks = [][]listedRow{{row}}
		l.n = 1
		return
	}
	ci, i, found := l.find(z.Name, z.View)
	if ci == len(l.chunks) {
		ci--
		i = len(l.chunks[ci])
	}
	// Chunks change in place (they were copied before they changed, some
	// 14 KB an insert or removal, 110 MB for the 4,000 zones a snapshot
	// may change): only l.mu's holder reads them, and a page copies its
	// zones.
	c := l.chunks[ci]
	if found {
		old := l.strs.zone(&c[i])
		l.counts[categoryOf(&old)]--
		c[i] = row
		l.chunks[ci] = c
		return
	}
	c = slices.Insert(c, i, row)
	l.n++
	if len(c) > 2*listChunk {
		left, right := slices.Clone(c[:listChunk]), slices.Clone(c[listChunk:])
		l.chunks[ci] = left
		l.chunks = slices.Insert(l.chunks, ci+1, right)
		return
	}
	l.chunks[ci] = c
}

// page returns up to limit zones (0: all) after the cursor ("name@view",
// "" for the start) that f keeps, the cursor of the next page ("" after
// the last) and how many zones f keeps in all: from the counts, but with
// a scope (f.Allow), which only a walk of every zone can count. l.mu is
// held.
func (l *listing) page(f ListFilter, cursor string, limit int) ([]ListedZone, string, int) {
	ci, i := 0, 0
	if cursor != "" {
		name, view, _ := strings.Cut(cursor, "@")
		var found bool
		ci, i, found = l.find(name, view)
		if found {
			i++
		}
	}
	page := []ListedZone{}
	next := ""
	for ; ci < len(l.chunks) && next == ""; ci, i = ci+1, 0 {
		c := l.chunks[ci]
		for ; i < len(c); i++ {
			l.visited.Add(1)
			z := l.strs.zone(&c[i])
			if !keeps(&f, &z) {
				continue
			}
			if limit > 0 && len(page) == limit {
				next = page[len(page)-1].Key()
				break
			}
			page = append(page, z)
		}
	}
	total := 0
	if f.Allow != nil {
		for _, c := range l.chunks {
			for k := range c {
				l.visited.Add(1)
				if z := l.strs.zone(&c[k]); keeps(&f, &z) {
					total++
				}
			}
		}
		return page, next, total
	}
	for cat, n := range l.counts {
		z := ListedZone{Type: cat.typ, Source: cat.source, View: cat.view, Managed: cat.managed}
		if keeps(&f, &z) {
			total += n
		}
	}
	return page, next, total
}
