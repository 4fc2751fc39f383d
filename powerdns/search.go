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
// zone list (walked a page at a time: searchZoneList); records are read
// zone by zone, in name order (searchParallel at a time), until max
// results are found.
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
	zones, err := a.searchZones(r.Context())
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	g := grant(r)
	out := []SearchResult{}
	if ot != "record" && ot != "comment" {
		c := zones.cursor()
		for z := c.next(r.Context()); z != nil && len(out) < max; z = c.next(r.Context()) {
			if g.AllowsZone(z.Name) && match(FQDN(z.Name)) {
				out = append(out, SearchResult{ObjectType: "zone", Name: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
			}
		}
		err = c.err
	}
	if err == nil && ot != "zone" && ot != "comment" && len(out) < max {
		out, err = a.searchRecords(r.Context(), zones.cursor(), g, match, max, out)
	}
	if err == nil && ot != "zone" {
		out, err = a.searchSideFiles(r.Context(), zones.cursor(), g, ot, match, max, out)
	}
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// searchZoneList is the zone list a search walks, once for the zones'
// names, once for their records and once for their side files: a page
// of zoneListPage zones at a time when the service lists its zones so
// (zonePager), so that a search holds neither the list of every zone
// (18 MB at 100,000 zones) nor their names, whatever the number of
// zones. Its first page is kept for the walks after the first, so that
// named's statistics channel (the serials the first page of a list
// reads) is asked once a search, as when the list was read whole.
type searchZoneList struct {
	pager zonePager
	first []ZoneInfo
	after string // the cursor of the page after first ("" after the last)
}

// searchZones reads the first page of the zones a search walks (the
// whole list when the service does not list its zones a page at a time).
func (a *API) searchZones(ctx context.Context) (*searchZoneList, error) {
	if p, ok := a.Service.(zonePager); ok {
		zones, next, err := p.ZonesPage(ctx, "", zoneListPage)
		return &searchZoneList{pager: p, first: zones, after: next}, err
	}
	zones, err := a.Service.ListZones(ctx)
	return &searchZoneList{first: zones}, err
}

// cursor starts a walk of the zones, in name order.
func (l *searchZoneList) cursor() *zoneCursor {
	return &zoneCursor{list: l, page: l.first, after: l.after}
}

// zoneCursor walks a searchZoneList: next answers each zone in turn, then
// nil, also when reading a page fails (err).
type zoneCursor struct {
	list  *searchZoneList
	page  []ZoneInfo
	i     int
	after string
	err   error
}

// next answers the next zone, nil after the last or when reading a page
// fails (err). The zone is valid until the next call's page after it.
func (c *zoneCursor) next(ctx context.Context) *ZoneInfo {
	for c.i >= len(c.page) {
		if c.after == "" || c.list.pager == nil || c.err != nil {
			return nil
		}
		c.page, c.after, c.err = c.list.pager.ZonesPage(ctx, c.after, zoneListPage)
		c.i = 0
		if c.err != nil {
			c.page = nil
			return nil
		}
	}
	c.i++
	return &c.page[c.i-1]
}

// searchParallel is how many zones a search reads at once: half the
// connections a zone service's DNS client keeps open to named (8), so
// that a search leaves the writes and other reads room.
const searchParallel = 4

// searchRecords adds the records of the zones c walks (those the grant
// allows) that match finds, up to max results, in the order of the zones
// and of each zone's RRsets. Zones are read searchParallel at a time,
// ahead of the one whose results are added; once max results are found
// no zone is read further (those already asked are waited for, their
// answers dropped) nor the zone list. A zone that cannot be read (a
// secondary not loaded yet) has nothing to find; a page of the zone list
// that cannot be read fails the search.
func (a *API) searchRecords(ctx context.Context, c *zoneCursor, g *auth.Grant, match func(string) bool, max int, out []SearchResult) ([]SearchResult, error) {
	listCtx := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type read struct{ sets []zonemodel.RRset }
	type pending struct {
		zone string
		ch   chan read
	}
	var ahead []pending // the zones asked, in order, at most searchParallel
	either := func(owner, value string) bool { return match(owner) || match(value) }
	done := false // every zone allowed has been asked
	start := func() {
		var zone string
		for {
			z := c.next(listCtx)
			if z == nil {
				done = true
				return
			}
			if g.AllowsZone(z.Name) {
				zone = z.Name
				break
			}
		}
		ch := make(chan read, 1)
		ahead = append(ahead, pending{zone, ch})
		go func() {
			sets, err := a.Service.SearchRecords(ctx, zone, either)
			if err != nil {
				sets = nil
			}
			ch <- read{sets}
		}()
	}
	for {
		for !done && len(ahead) < searchParallel && len(out) < max {
			start()
		}
		if len(out) >= max {
			// Wait for the reads in flight (cancelled).
			cancel()
			for _, p := range ahead {
				<-p.ch
			}
			break
		}
		if len(ahead) == 0 {
			break
		}
		res := <-ahead[0].ch
		zone := ahead[0].zone
		ahead = append(ahead[:0], ahead[1:]...)
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
	return out, c.err // the reads asked before a page failed are waited for above
}

// searchSideFiles adds what the side files of the zones c walks keep and
// match finds: disabled records (unless only comments are searched) and
// comments (unless only records are), up to max results.
func (a *API) searchSideFiles(ctx context.Context, c *zoneCursor, g *auth.Grant, ot string, match func(string) bool, max int, out []SearchResult) ([]SearchResult, error) {
	sf := a.sideFiles()
	if sf == nil || len(out) >= max {
		return out, nil
	}
	withData, err := sf.SideFileZones(zonemodel.SideKindPowerDNS)
	if err != nil || len(withData) == 0 {
		return out, nil
	}
	for z := c.next(ctx); z != nil && len(out) < max; z = c.next(ctx) {
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
				for _, cm := range rs.Comments {
					if len(out) < max && match(cm.Content) {
						out = append(out, SearchResult{ObjectType: "comment", Name: rs.Name, Type: rs.Type,
							Content: cm.Content, Zone: FQDN(z.Name), ZoneID: ZoneID(z.Name)})
					}
				}
			}
		}
	}
	return out, c.err
}

// ok2 matches names written without their trailing dot (PowerDNS stores
// names so, and clients search for "example.com").
func ok2(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok
}
