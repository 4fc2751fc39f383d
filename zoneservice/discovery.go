package zoneservice

import (
	"context"
	"slices"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// ListedZone is one zone of the list of every zone named serves
// (AllZones): the zone model's type, which front ends read.
type ListedZone = zonemodel.ListedZone

// ListFilter selects zones of AllZones (zonemodel.ListFilter).
type ListFilter = zonemodel.ListFilter

func keeps(f *ListFilter, z *ListedZone) bool {
	switch {
	case f.Type != "" && z.Type != f.Type,
		f.Source != "" && z.Source != f.Source,
		f.View != "" && z.View != f.View,
		f.Managed != nil && z.Managed != *f.Managed,
		f.Allow != nil && !f.Allow(z.Name, z.View):
		return false
	}
	return true
}

// ErrNoInventory means the service has no Inventory (no statistics
// channel is configured), so it cannot list the zones it does not manage
// (zonemodel's).
var ErrNoInventory = zonemodel.ErrNoInventory

// AllZones lists every zone named serves (the Inventory's snapshot, see
// package inventory for how fresh it is) together with the managed zones
// of the index, in order of name then view, one page at a time: at most
// limit zones (0: all) after cursor (a ListedZone.Key), those f keeps.
// Store's index is the zones of the service's View ("": addressed
// without a view), ViewIndex the other views'. It
// returns the cursor of the next page ("" after the last) and how many
// zones f keeps in all. A zone of the index is managed, and its source is
// "api" unless named reports it from named.conf; an indexed zone named
// has not reported yet is listed from the index. Errors: ErrNoInventory,
// ErrControl (named's statistics could not be read), ErrStorage.
func (s *Service) AllZones(ctx context.Context, f ListFilter, cursor string, limit int) ([]ListedZone, string, int, error) {
	if s.Inventory == nil {
		return nil, "", 0, newErr(ErrNoInventory, "", "", "listing the zones named serves needs its statistics channel (see docs/migration.md)", nil)
	}
	snap, err := s.Inventory.Zones(ctx)
	if err != nil {
		return nil, "", 0, newErr(ErrControl, "", "statistics", "reading the zones named serves", err)
	}
	l, err := s.current(snap)
	if err != nil {
		return nil, "", 0, err
	}
	defer l.mu.Unlock()
	page, next, total := l.page(f, cursor, limit)
	return page, next, total, nil
}

// walkInventory calls fn for each zone of named's and of the indexes
// (by view; "" is the index of the zones addressed without a view), in
// order of name then view, without building the list (a page of it is
// all a request keeps). An entry of a view's index marks that view's zone
// of its name managed; an entry of the index without a view marks the
// zone of its name in the default view, else in the first view that has
// one. An entry named has not reported (a zone created since the
// snapshot) is listed from the index, in its view (the default view, or
// named's only view, for one of no view).
func walkInventory(snap *inventory.Snapshot, indexed map[string][]zonestore.Entry, fn func(*ListedZone)) {
	type key struct{ name, view string }
	byKey := map[key]*zonestore.Entry{}
	for view, es := range indexed {
		for i := range es {
			byKey[key{es[i].Name, view}] = &es[i]
		}
	}
	defaultView := defaultViewOf(snap)
	// The entries no zone of the snapshot stands for, sorted.
	zones := snap.Zones()
	var extra []ListedZone
	for view, es := range indexed {
		for i := range es {
			e := &es[i]
			first, _ := slices.BinarySearchFunc(zones, e.Name, func(z inventory.Zone, name string) int { return strings.Compare(z.Name, name) })
			found := false
			for k := first; k < len(zones) && zones[k].Name == e.Name; k++ {
				if zones[k].View == view || view == "" && indexedHere(zones, k) {
					found = true
					break
				}
			}
			if !found {
				v := view
				if v == "" {
					v = defaultView
				}
				extra = append(extra, ListedZone{Name: e.Name, View: v, Type: e.Type, Managed: true, Source: inventory.SourceAPI, Created: e.Created})
			}
		}
	}
	sortListed(extra)
	var lz ListedZone
	for i := range zones {
		z := &zones[i]
		for len(extra) > 0 && compareKey(extra[0].Name, extra[0].View, z.Name, z.View) < 0 {
			fn(&extra[0])
			extra = extra[1:]
		}
		lz = ListedZone{Name: z.Name, View: z.View, Type: z.Type, Serial: z.Serial, HasSerial: z.HasSerial, Source: z.Source}
		e := byKey[key{z.Name, z.View}]
		if e == nil && indexedHere(zones, i) {
			e = byKey[key{z.Name, ""}]
		}
		if e != nil {
			lz.Managed, lz.Created = true, e.Created
			if lz.Source != inventory.SourceNamedConf {
				lz.Source = inventory.SourceAPI
			}
		}
		fn(&lz)
	}
	for i := range extra {
		fn(&extra[i])
	}
}

// indexedHere reports whether zones[i] is the zone of its name that an
// entry of the index without a view stands for: the default view's, else
// the first view's.
func indexedHere(zones []inventory.Zone, i int) bool {
	name := zones[i].Name
	first := i
	for first > 0 && zones[first-1].Name == name {
		first--
	}
	for k := first; k < len(zones) && zones[k].Name == name; k++ {
		if zones[k].View == inventory.DefaultView {
			return k == i
		}
	}
	return first == i
}

// sortListed sorts by name, then view.
func sortListed(zs []ListedZone) {
	slices.SortFunc(zs, func(a, b ListedZone) int {
		return compareKey(a.Name, a.View, b.Name, b.View)
	})
}

// compareKey orders zones by name, then view.
func compareKey(name1, view1, name2, view2 string) int {
	if c := strings.Compare(name1, name2); c != 0 {
		return c
	}
	return strings.Compare(view1, view2)
}

// inventoryForget drops a deleted zone from the inventory at once (in
// the service's view; in every view for a service of no view).
func (s *Service) inventoryForget(name string) {
	if s.Inventory != nil {
		s.Inventory.Forget(zonemodel.ZoneOfOrigin(name), s.View)
	}
}

// defaultViewOf is the view of the snapshot's zones that are addressed
// without a view: named's only view, else the default view.
func defaultViewOf(snap *inventory.Snapshot) string {
	if len(snap.Views) == 1 {
		return snap.Views[0]
	}
	return inventory.DefaultView
}

// Serials returns the SOA serial of each zone of the service's View as
// named's statistics channel last reported it, by canonical name: as
// fresh as the Inventory's snapshot (at most twice its refresh interval
// old), so a zone created since has none yet, nor has a zone named has
// not loaded. It is nil without an Inventory or when named cannot be
// asked: a zone list then goes without serials rather than failing.
func (s *Service) Serials(ctx context.Context) map[string]uint32 {
	if s.Inventory == nil {
		return nil
	}
	snap, err := s.Inventory.Zones(ctx)
	if err != nil {
		return nil
	}
	view := s.serialView(snap)
	zones := snap.Zones()
	out := make(map[string]uint32, len(zones))
	for _, z := range zones {
		if z.View == view && z.HasSerial {
			out[z.Name] = z.Serial
		}
	}
	return out
}

// SerialsOf is Serials as a lookup of one zone at a time in the
// Inventory's snapshot (O(log zones) a zone), without the map of every
// zone's serial Serials builds: a list read a page at a time. With held,
// it asks named nothing and looks in the snapshot the Inventory holds
// already, if any: the pages after a list's first, which asked named
// when it had to (Serials' asking), so that a list whose first page
// found named failing does not ask it again at every page. It is nil
// when Serials is.
func (s *Service) SerialsOf(ctx context.Context, held bool) func(name string) (uint32, bool) {
	if s.Inventory == nil {
		return nil
	}
	var snap *inventory.Snapshot
	if held {
		snap = s.Inventory.Held()
	} else if sn, err := s.Inventory.Zones(ctx); err == nil {
		snap = sn
	}
	if snap == nil {
		return nil
	}
	view := s.serialView(snap)
	return func(name string) (uint32, bool) {
		if z, ok := snap.Find(name, view); ok && z.HasSerial {
			return z.Serial, true
		}
		return 0, false
	}
}

// serialView is the view of snap whose serials Serials reports.
func (s *Service) serialView(snap *inventory.Snapshot) string {
	if s.View != "" {
		return s.View
	}
	return defaultViewOf(snap)
}
