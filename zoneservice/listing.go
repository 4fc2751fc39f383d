package zoneservice

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// listing is the list of every zone (AllZones) kept between requests:
// the inventory's snapshot joined with the indexes (walkInventory), in
// order of name then view, in bounded chunks, with the number of zones
// of each category (type, source, view, managed). A page costs its own
// zones (and those a filter skips), a total the number of categories,
// whatever the number of zones. It is built once per snapshot of named's
// zones (in the background, but for the first one) and follows, name by
// name, the changes of the indexes (zonestore's ChangesSince) and the
// zones the inventory forgot in between: O(changes).
type listing struct {
	mu     sync.Mutex
	built  bool
	gen    uint64            // the snapshot's Gen it was built from
	forgot int               // how many of that snapshot's Forgotten it applied
	seqs   map[string]uint64 // the last change applied, by index ("" and each view's)
	chunks [][]ListedZone
	n      int
	counts map[category]int
	// rebuilding is set while a build for a new snapshot runs.
	rebuilding bool
	// visited counts the zones pages looked at and the index changes
	// applied (tests).
	visited atomic.Int64
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

// listChunk bounds the chunks: an insert or removal moves at most
// 2*listChunk zones.
const listChunk = 128

// changeFeed is an index that reports its changes (*zonestore.Store).
type changeFeed interface {
	ChangesSince(seq uint64) ([]zonestore.Change, uint64, bool, error)
}

// indexes returns the indexes AllZones joins, by view ("": the service's
// Store, the zones addressed without a view).
func (s *Service) indexes(snap *inventory.Snapshot) (map[string]Index, error) {
	out := map[string]Index{"": s.Store}
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
// snapshot it starts that in the background and serves the listing it
// has, brought up to date name by name meanwhile.
func (s *Service) current(snap *inventory.Snapshot) (*listing, error) {
	l := &s.all
	idx, err := s.indexes(snap)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if !l.built {
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
		l.forgot = len(snap.Forgotten)
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
	var chunks [][]ListedZone
	var chunk []ListedZone
	counts := map[category]int{}
	n := 0
	err := walkInventory(snap, srcs, func(z *ListedZone) {
		if len(chunk) == listChunk {
			chunks = append(chunks, chunk)
			chunk = make([]ListedZone, 0, listChunk)
		}
		chunk = append(chunk, *z)
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
	l.built, l.gen, l.forgot, l.seqs = true, snap.Gen, len(snap.Forgotten), seqs
	l.chunks, l.n, l.counts = chunks, n, counts
	return nil
}

// entrySource gives an index's entries in order of name: peek returns
// the next (nil after the last), pop takes it.
type entrySource interface {
	peek() (*zonestore.Entry, error)
	pop()
}

// indexPages reads an index rebuildPage entries at a time.
type indexPages struct {
	x      Index
	page   []zonestore.Entry
	i      int
	cursor string
	end    bool
}

func (p *indexPages) peek() (*zonestore.Entry, error) {
	if p.i < len(p.page) {
		return &p.page[p.i], nil
	}
	if p.end {
		return nil, nil
	}
	page, next, _, err := p.x.List("", p.cursor, rebuildPage)
	if err != nil {
		return nil, err
	}
	p.page, p.i, p.cursor, p.end = page, 0, next, next == ""
	if len(page) == 0 {
		p.end = true
		return nil, nil
	}
	return &p.page[0], nil
}

func (p *indexPages) pop() { p.i++ }

// entryList gives the entries of a slice sorted by name.
type entryList []zonestore.Entry

func (l *entryList) peek() (*zonestore.Entry, error) {
	if len(*l) == 0 {
		return nil, nil
	}
	return &(*l)[0], nil
}

func (l *entryList) pop() { *l = (*l)[1:] }

// walkInventory calls fn for each zone of named's and of the indexes
// (by view; "" is the index of the zones addressed without a view), in
// order of name then view, without building the list (a page of it is
// all a request keeps): one walk of the snapshot beside each index's
// entries, a name at a time. An entry of a view's index marks that
// view's zone of its name managed; an entry of the index without a view
// marks the zone of its name in the default view, else in the first
// view that has one. An entry named has not reported (a zone created
// since the snapshot) is listed from the index, in its view (the
// default view, or named's only view, for one of no view).
func walkInventory(snap *inventory.Snapshot, srcs map[string]entrySource, fn func(*ListedZone)) error {
	w := nameJoin{srcs: srcs, defaultView: defaultViewOf(snap), fn: fn}
	for view := range srcs {
		w.views = append(w.views, view)
	}
	slices.Sort(w.views)
	w.entries = make([]*zonestore.Entry, len(w.views))
	var err error
	snap.Each(func(z *inventory.Zone) {
		if err != nil {
			return
		}
		if len(w.group) > 0 && w.group[0].Name != z.Name {
			err = w.flush()
		}
		w.group = append(w.group, *z)
	})
	if err == nil {
		err = w.flush()
	}
	for err == nil {
		// The entries after named's last zone.
		var name string
		if name, err = w.nextEntry(); err != nil || name == "" {
			break
		}
		err = w.join(name, nil)
	}
	return err
}

// nameJoin is walkInventory's state: the snapshot's zones of the name
// being read, the indexes' entries.
type nameJoin struct {
	srcs        map[string]entrySource
	views       []string // of srcs, sorted
	defaultView string
	fn          func(*ListedZone)
	group       []inventory.Zone   // the zones of one name, by view
	entries     []*zonestore.Entry // by views' order, of the name joined
	out         []ListedZone
}

// nextEntry returns the least name of the entries not joined yet ("" when
// none is left).
func (w *nameJoin) nextEntry() (string, error) {
	name, any := "", false
	for _, view := range w.views {
		e, err := w.srcs[view].peek()
		if err != nil {
			return "", err
		}
		if e != nil && (!any || e.Name < name) {
			name, any = e.Name, true
		}
	}
	return name, nil
}

// flush joins the group (the zones of one name), after the entries of
// the names before it, and empties it.
func (w *nameJoin) flush() error {
	if len(w.group) == 0 {
		return nil
	}
	name := w.group[0].Name
	for {
		n, err := w.nextEntry()
		if err != nil {
			return err
		}
		if n == "" || n >= name {
			break
		}
		if err := w.join(n, nil); err != nil {
			return err
		}
	}
	err := w.join(name, w.group)
	w.group = w.group[:0]
	return err
}

// join calls fn for the zones of name: named's, group (none when named
// has none), joined with the indexes' entries of name, which it takes.
func (w *nameJoin) join(name string, group []inventory.Zone) error {
	for k, view := range w.views {
		w.entries[k] = nil
		src := w.srcs[view]
		e, err := src.peek()
		if err != nil {
			return err
		}
		if e != nil && e.Name == name {
			w.entries[k] = e
			src.pop()
		}
	}
	entry := func(view string) *zonestore.Entry {
		if k, ok := slices.BinarySearch(w.views, view); ok {
			return w.entries[k]
		}
		return nil
	}
	// The zone an entry of no view stands for: the default view's, else
	// the first.
	here := 0
	for k := range group {
		if group[k].View == inventory.DefaultView {
			here = k
			break
		}
	}
	w.out = w.out[:0]
	for k := range group {
		z := &group[k]
		lz := ListedZone{Name: z.Name, View: z.View, Type: z.Type, Serial: z.Serial, HasSerial: z.HasSerial, Source: z.Source}
		e := entry(z.View)
		if e == nil && k == here {
			e = entry("")
		}
		if e != nil {
			lz.Managed, lz.Created = true, e.Created
			if lz.Source != inventory.SourceNamedConf {
				lz.Source = inventory.SourceAPI
			}
		}
		w.out = append(w.out, lz)
	}
	for k, view := range w.views {
		e := w.entries[k]
		if e == nil {
			continue
		}
		v := view
		if v == "" {
			if len(group) > 0 {
				continue
			}
			v = w.defaultView
		} else if slices.ContainsFunc(group, func(z inventory.Zone) bool { return z.View == view }) {
			continue
		}
		w.out = append(w.out, ListedZone{Name: e.Name, View: v, Type: e.Type, Managed: true, Source: inventory.SourceAPI, Created: e.Created})
	}
	slices.SortStableFunc(w.out, func(a, b ListedZone) int { return strings.Compare(a.View, b.View) })
	for i := range w.out {
		w.fn(&w.out[i])
	}
	// Nothing of the entries is kept: the next page of an index may
	// replace them.
	clear(w.entries)
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
		if !found && (ci >= len(l.chunks) || i >= len(l.chunks[ci]) || l.chunks[ci][i].Name != name) {
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
		return compareKey(z.Name, z.View, name, view) >= 0
	})
	if ci == len(l.chunks) {
		return ci, 0, false
	}
	c := l.chunks[ci]
	i = sort.Search(len(c), func(k int) bool { return compareKey(c[k].Name, c[k].View, name, view) >= 0 })
	return ci, i, i < len(c) && c[i].Name == name && c[i].View == view
}

// removeAt removes the zone at chunk ci, position i.
func (l *listing) removeAt(ci, i int) {
	c := l.chunks[ci]
	l.counts[categoryOf(&c[i])]--
	c = slices.Delete(slices.Clone(c), i, i+1)
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
	if len(l.chunks) == 0 {
		l.chunks = [][]ListedZone{{z}}
		l.n = 1
		return
	}
	ci, i, found := l.find(z.Name, z.View)
	if ci == len(l.chunks) {
		ci--
		i = len(l.chunks[ci])
	}
	// Chunks are copied before they change: a page copies its zones
	// under l.mu, so this is not needed for safety, but it keeps a
	// chunk a builder handed over immutable.
	c := slices.Clone(l.chunks[ci])
	if found {
		l.counts[categoryOf(&c[i])]--
		c[i] = z
		l.chunks[ci] = c
		return
	}
	c = slices.Insert(c, i, z)
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
			if !keeps(&f, &c[i]) {
				continue
			}
			if limit > 0 && len(page) == limit {
				next = page[len(page)-1].Key()
				break
			}
			page = append(page, c[i])
		}
	}
	total := 0
	if f.Allow != nil {
		for _, c := range l.chunks {
			for k := range c {
				l.visited.Add(1)
				if keeps(&f, &c[k]) {
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
