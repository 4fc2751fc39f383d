package events

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Changes is the answer of GET /api/v1/changes and
// /api/v1/zones/{name}/changes.
type Changes struct {
	Changes    []zonemodel.ChangeEntry `json:"changes"`
	Count      int                     `json:"count"`
	NextCursor string                  `json:"next_cursor,omitempty"`
}

// Page is what the host resolved of a request for a page of changes.
type Page struct {
	// Zone is the zone of GET /api/v1/zones/{name}/changes, normalised;
	// "" for GET /api/v1/changes (every zone the identity may read).
	Zone string
	// View is the view whose entries are read; DefaultView is true when
	// it is the default view, whose zones are recorded without a view.
	View        string
	DefaultView bool
	// Default is the default view's name ("" without one): the view the
	// scopes see the entries recorded without a view in.
	Default string
	// Limit is the page size when the query gives none, MaxLimit the
	// largest a query may ask (the zone list's).
	Limit, MaxLimit int
}

// QueryError is a request for changes whose query is not valid: each
// problem, for the host's 400.
type QueryError struct {
	Problems []string
}

func (e *QueryError) Error() string { return "invalid query: " + strings.Join(e.Problems, "; ") }

// ReadChanges reads a page of the change history log, oldest first, from
// after `cursor` (an entry's id), or of the zone's changes after `since`
// (a serial), filtered by `name`, `type` (record type) and `kind` (entry
// types, comma-separated), as record reads are by the grant g (Visible;
// nil: everything). An invalid query is a *QueryError; any other error
// is the history's read.
func ReadChanges(q url.Values, log frontend.ChangeLog, g *auth.Grant, p Page) (Changes, error) {
	zone, view := p.Zone, p.View
	var problems []string
	limit := p.Limit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > p.MaxLimit {
			problems = append(problems, fmt.Sprintf("limit: must be an integer from 1 to %d, got %q", p.MaxLimit, v))
		}
		limit = n
	}
	var after uint64
	if v := q.Get("cursor"); v != "" {
		n, ok := zonemodel.ParseChangeID(v)
		if !ok {
			problems = append(problems, fmt.Sprintf("cursor: not a change id: %q", v))
		}
		after = n
	}
	f := zonemodel.ChangeFilter{Zone: zone, View: view}
	if p.DefaultView {
		f.View = ""
	}
	if v := q.Get("name"); v != "" {
		if zone == "" {
			problems = append(problems, "name: filters the changes of one zone (GET /api/v1/zones/{name}/changes)")
		} else if n, err := zonemodel.NormalizeRecordName(v, zone); err != nil {
			problems = append(problems, "name: "+err.Error())
		} else {
			f.Name = n
		}
	}
	if v := q.Get("type"); v != "" {
		t, err := zonemodel.ParseListType(v)
		if err != nil {
			problems = append(problems, "type: "+err.Error())
		}
		f.Type = zonemodel.TypeString(t)
	}
	if v := q.Get("kind"); v != "" {
		for _, k := range strings.Split(v, ",") {
			if !ValidType(k) {
				problems = append(problems, fmt.Sprintf("kind: %q is not a change type (%s)", k, strings.Join(zonemodel.ChangeTypes, ", ")))
				continue // not kept: the list holds at most the change types
			}
			if !slices.Contains(f.Types, k) {
				f.Types = append(f.Types, k) // each once: every entry read is matched against the list
			}
		}
	}
	var since *uint32
	if v := q.Get("since"); v != "" {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || zone == "" {
			problems = append(problems, fmt.Sprintf("since: a serial of the zone (GET /api/v1/zones/{name}/changes), got %q", v))
		}
		s := uint32(n)
		since = &s
	}
	if len(problems) > 0 {
		return Changes{}, &QueryError{Problems: problems}
	}
	f.Keep = Visible(g, log, since, p.Default)
	if keep := f.Keep; p.DefaultView {
		f.Keep = func(e zonemodel.ChangeEntry) (zonemodel.ChangeEntry, bool) {
			if e.View != "" {
				return e, false
			}
			if keep == nil {
				return e, true
			}
			return keep(e)
		}
	}
	es, err := log.Read(after, f, limit+1)
	if err != nil {
		return Changes{}, err
	}
	body := Changes{Changes: es}
	if len(es) > limit {
		body.Changes = es[:limit]
		body.NextCursor = es[limit-1].ID
	}
	if body.Changes == nil {
		body.Changes = []zonemodel.ChangeEntry{}
	}
	body.Count = len(body.Changes)
	return body, nil
}

// ValidType reports whether k is a change's (an event's) type.
func ValidType(k string) bool {
	for _, t := range zonemodel.ChangeTypes {
		if t == k {
			return true
		}
	}
	return false
}

// Visible keeps what the grant may read, as record reads do: the zones
// it allows and, when it limits record names or types, only the RRsets it
// may read (entries without records, the zone operations, are then not
// shown, as a record-limited token sees no zone configuration). A grant
// that does not allow server-wide operations sees only the entries of a
// zone's current life (history.Log.Born): not those of an earlier zone
// of the same name, which may have been another tenant's. since, if set,
// keeps the changes made after the zone was at that serial: from the
// first entry whose serial after is greater (RFC 1982). defaultView is
// the default view's name ("" without one): the entries recorded without
// a view are its zones', as the REST routes address them without
// ?view=, so a scope sees them there (a scope naming the default view
// saw none of them before).
func Visible(g *auth.Grant, log frontend.ChangeLog, since *uint32, defaultView string) func(zonemodel.ChangeEntry) (zonemodel.ChangeEntry, bool) {
	started := since == nil
	return func(e zonemodel.ChangeEntry) (zonemodel.ChangeEntry, bool) {
		if !started {
			if e.SerialAfter == nil || !serialGreater(*e.SerialAfter, *since) {
				return e, false
			}
			started = true
		}
		if g == nil {
			return e, true
		}
		view := e.View
		if view == "" {
			view = defaultView
		}
		if !g.AllowsZoneIn(e.Zone, view) {
			return e, false
		}
		if !g.AllowsServer() && e.Seq < log.Born(e.Zone, e.View) {
			return e, false
		}
		if !g.RestrictsRecords() {
			return e, true
		}
		return e.Only(func(s zonemodel.ChangeRRset) bool { return g.AllowsRecord(s.Name+".", s.Type) })
	}
}

// serialGreater is RFC 1982 serial arithmetic: a > b.
func serialGreater(a, b uint32) bool { return a != b && a-b < 1<<31 }
