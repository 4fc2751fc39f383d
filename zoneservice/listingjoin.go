package zoneservice

import (
	"slices"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// The join of the list of every zone (listing.go): named's zones, from
// the inventory's snapshot, beside each index's entries, a name at a time.

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
