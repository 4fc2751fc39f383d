package powerdns

import (
	"context"
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
// outside the identity's scope are left out. Zones are matched from the
// zone list; records are read zone by zone, in name order (searchParallel
// at a time), until max results are found.
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
	if ot != "zone" && ot != "comment" && len(out) < max {
		out = a.searchRecords(r.Context(), zones, g, match, max, out)
	}
	if ot != "zone" {
		out = a.searchSideFiles(zones, g, ot, match, max, out)
	}
	writeJSON(w, http.StatusOK, out)
}

// searchParallel is how many zones a search reads at once: half the
// connections a zone service's DNS client keeps open to named (8), so
// that a search leaves the writes and other reads room.
const searchParallel = 4

// searchRecords adds the records of zones (those the grant allows) that
// match finds, up to max results, in the order of zones and of each
// zone's RRsets. Zones are read searchParallel at a time, ahead of the
// one whose results are added; once max results are found no zone is
// read further (those already asked are waited for, their answers
// dropped). A zone that cannot be read (a secondary not loaded yet) has
// nothing to find.
func (a *API) searchRecords(ctx context.Context, zones []ZoneInfo, g *auth.Grant, match func(string) bool, max int, out []SearchResult) []SearchResult {
	var names []string
	for _, z := range zones {
		if g.AllowsZone(z.Name) {
			names = append(names, z.Name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type read struct{ sets []zonemodel.RRset }
	window := make([]chan read, searchParallel)
	either := func(owner, value string) bool { return match(owner) || match(value) }
	started := 0
	start := func() {
		ch := make(chan read, 1)
		window[started%searchParallel] = ch
		zone := names[started]
		started++
		go func() {
			sets, err := a.Service.SearchRecords(ctx, zone, either)
			if err != nil {
				sets = nil
			}
			ch <- read{sets}
		}()
	}
	for i := 0; i < len(names); i++ {
		for started < len(names) && started-i < searchParallel && len(out) < max {
			start()
		}
		if len(out) >= max {
			// Wait for the reads in flight (cancelled).
			cancel()
			for ; i < started; i++ {
				<-window[i%searchParallel]
			}
			break
		}
		res := <-window[i%searchParallel]
		zone := names[i]
		for _, s := range res.sets {
			if !g.AllowsRecord(s.Name, s.Type) {
				continue
			}
			for _, v := range s.Values {
				if len(out) < max && (match(s.Name) || match(v)) {
					ttl, disabled := s.TTL, false
					out = append(out, SearchResult{ObjectType: "record", Name: s.Name, Type: s.Type, TTL: &ttl,
						Disabled: &disabled, Content: v, Zone: FQDN(zone), ZoneID: ZoneID(zone)})
				}
			}
		}
	}
	return out
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
