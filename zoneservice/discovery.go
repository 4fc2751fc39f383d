package zoneservice

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
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
	out := map[string]uint32{}
	snap.Each(func(z *inventory.Zone) {
		if z.View == view && z.HasSerial {
			out[z.Name] = z.Serial
		}
	})
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
//
// A zone the index has from after the snapshot's read of named began
// (created is its entry's Created), which the snapshot may lack, is read
// through the zone cache instead (CachedZone: named's zonestatus the
// first time, then nothing while it holds), on the first page (not
// held), for at most newSerialReads zones and until a read fails: so
// that a list right after a create carries the new zone's serial
// (PowerDNS's test_list_zones), where it carried 0 until the next
// refresh.
func (s *Service) SerialsOf(ctx context.Context, held bool) func(name string, created time.Time) (uint32, bool) {
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
	asked, reads := snap.Asked(), 0
	return func(name string, created time.Time) (uint32, bool) {
		if z, ok := snap.Find(name, view); ok && z.HasSerial {
			return z.Serial, true
		}
		if held || asked.IsZero() || !created.After(asked) || reads == newSerialReads {
			return 0, false
		}
		reads++
		if zs, err := s.CachedZone(ctx, name); err == nil && zs.Status != nil && zs.Status.HasSerial {
			return zs.Status.Serial, true
		}
		reads = newSerialReads // named failed: no more this page
		return 0, false
	}
}

// newSerialReads bounds the zones created since the snapshot whose
// serial one call of SerialsOf's lookup reads from named (a page of a
// list): many such zones mean the inventory's refreshes are failing or
// behind, and named is not asked once per zone then.
const newSerialReads = 16

// serialView is the view of snap whose serials Serials reports.
func (s *Service) serialView(snap *inventory.Snapshot) string {
	if s.View != "" {
		return s.View
	}
	return defaultViewOf(snap)
}
