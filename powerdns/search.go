package powerdns

import (
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DefaultSearchResults is the number of results of a search without
// max, PowerDNS's default.
const DefaultSearchResults = 100

// MaxSearchResults bounds max: PowerDNS takes any max (its backends stop
// there), but here every result is held in memory until the answer is
// written, so a larger max is refused (422) rather than answered with a
// body of any size (24 searches with max=1000000 took Caddy from 190 MiB
// to 1.1 GiB).
const MaxSearchResults = 10000

// searchData answers GET /search-data?q=&max=&object_type=: zones whose
// name and records whose name or content match q (* any characters, ?
// one, case-insensitive), at most max (default 100, at most
// MaxSearchResults). Zones and records
// outside the identity's scope are left out. Records are read zone by
// zone, in name order, until max results are found.
func (a *API) searchData(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	term := q.Get("q")
	if term == "" {
		WriteError(w, http.StatusUnprocessableEntity, "Query q can't be blank")
		return
	}
	max := DefaultSearchResults
	if v := q.Get("max"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			WriteError(w, http.StatusUnprocessableEntity, "Maximum entries must be larger than 0")
			return
		}
		if n > MaxSearchResults {
			WriteError(w, http.StatusUnprocessableEntity, "max %d is over %d, the most one search answers: narrow q, or search by object_type", n, MaxSearchResults)
			return
		}
		max = n
	}
	ot := q.Get("object_type")
	switch ot {
	case "", "all", "zone", "record":
	case "comment":
	default:
		WriteError(w, http.StatusUnprocessableEntity, "object_type must be one of the following options: all, zone, record, comment")
		return
	}
	pattern := strings.ToLower(term)
	match := func(s string) bool {
		s = strings.ToLower(s)
		ok, _ := path.Match(pattern, s)
		return ok || ok2(pattern, strings.TrimSuffix(s, "."))
	}
	zones, err := a.Service.ListZones(r.Context())
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	g := grant(r)
	out := []SearchResult{}
	if ot != "record" && ot != "comment" {
		for _, z := range zones {
			if len(out) < max && g.AllowsZone(z.Name) && match(FQDN(z.Name)) {
				out = append(out, SearchResult{ObjectType: "zone", Name: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
			}
		}
	}
	if ot != "zone" && ot != "comment" {
		for _, z := range zones {
			if len(out) >= max {
				break
			}
			if !g.AllowsZone(z.Name) {
				continue
			}
			_, sets, err := a.Service.Records(r.Context(), z.Name)
			if err != nil {
				continue // a secondary not loaded yet: nothing to find
			}
			for _, s := range sets {
				if !g.AllowsRecord(s.Name, s.Type) {
					continue
				}
				for _, v := range s.Values {
					if len(out) < max && (match(s.Name) || match(v)) {
						ttl, disabled := s.TTL, false
						out = append(out, SearchResult{ObjectType: "record", Name: s.Name, Type: s.Type, TTL: &ttl,
							Disabled: &disabled, Content: v, Zone: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
					}
				}
			}
		}
	}
	if ot != "zone" {
		out = a.searchSideFiles(zones, g, ot, match, max, out)
	}
	writeJSON(w, http.StatusOK, out)
}

// searchSideFiles adds what the zones' side files keep and match finds:
// disabled records (unless only comments are searched) and comments
// (unless only records are), up to max results.
func (a *API) searchSideFiles(zones []ZoneInfo, g *auth.Grant, ot string, match func(string) bool, max int, out []SearchResult) []SearchResult {
	sf := a.sideFiles()
	if sf == nil || len(out) >= max {
		return out
	}
	withData, err := sf.SideFileZones(zonemodel.SideKindPowerDNS)
	if err != nil || len(withData) == 0 {
		return out
	}
	for i := range zones {
		z := &zones[i]
		if !withData[z.Name] || !g.AllowsZone(z.Name) {
			continue
		}
		d, err := readData(sf, z)
		if err != nil {
			continue
		}
		keys := make([]string, 0, len(d.RRsets))
		for k := range d.RRsets {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rs := d.RRsets[k]
			if !g.AllowsRecord(rs.Name, rs.Type) {
				continue
			}
			if ot != "comment" {
				for _, v := range rs.Disabled {
					if len(out) < max && (match(rs.Name) || match(v)) {
						ttl, disabled := rs.TTL, true
						out = append(out, SearchResult{ObjectType: "record", Name: rs.Name, Type: rs.Type, TTL: &ttl,
							Disabled: &disabled, Content: v, Zone: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
					}
				}
			}
			if ot != "record" {
				for _, c := range rs.Comments {
					if len(out) < max && match(c.Content) {
						out = append(out, SearchResult{ObjectType: "comment", Name: rs.Name, Type: rs.Type,
							Content: c.Content, Zone: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
					}
				}
			}
		}
	}
	return out
}

// ok2 matches names written without their trailing dot (PowerDNS stores
// names so, and clients search for "example.com").
func ok2(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok
}
