package rest

import (
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// listInScope lists zones as Store.List does, keeping only those the
// grant allows. With a grant that names zones, the whole index is read
// and filtered, so pages, cursors and totals count only allowed zones.
func listInScope(s zoneservice.Index, g *auth.Grant, typ, cursor string, limit int) ([]zonestore.Entry, string, int, error) {
	if !g.RestrictsZones() {
		return s.List(typ, cursor, limit)
	}
	all, _, _, err := s.List(typ, "", 0)
	if err != nil {
		return nil, "", 0, err
	}
	var allowed []zonestore.Entry
	for _, e := range all {
		if g.AllowsZone(e.Name) {
			allowed = append(allowed, e)
		}
	}
	page := []zonestore.Entry{}
	next := ""
	for _, e := range allowed {
		if cursor != "" && e.Name <= cursor {
			continue
		}
		if limit > 0 && len(page) == limit {
			next = page[len(page)-1].Name
			break
		}
		page = append(page, e)
	}
	return page, next, len(allowed), nil
}

// recordsInScope keeps the RRsets whose name and type the grant allows.
func recordsInScope(g *auth.Grant, sets []dnsupdate.RRset) []dnsupdate.RRset {
	if !g.RestrictsRecords() {
		return sets
	}
	out := sets[:0:0]
	for _, s := range sets {
		if g.AllowsRecord(s.Name, s.Type) {
			out = append(out, s)
		}
	}
	return out
}
