package rest

import "net/http"

// ChangesPage is the page of the change history a request for changes
// reads, its zone and view resolved (package events' Page).
type ChangesPage struct {
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

// ChangesRoutes are GET /api/v1/changes (every zone the identity may
// read) and GET /api/v1/zones/{name}/changes: the zone and the view
// resolved here, as every route of the API resolves them, then page
// answers the page (the host's, over package events). Moved from
// module/history.go.
func (a *API) ChangesRoutes(page func(w http.ResponseWriter, r *http.Request, p ChangesPage)) []Route {
	handle := func(zoned bool) func(w http.ResponseWriter, r *http.Request, p Params) {
		return func(w http.ResponseWriter, r *http.Request, p Params) { a.changes(w, r, p, zoned, page) }
	}
	return []Route{
		{Method: http.MethodGet, Template: APIPrefix + "/zones/{name}/changes", Handle: handle(true)},
		{Method: http.MethodGet, Template: APIPrefix + "/changes", Handle: handle(false)},
	}
}

// changes resolves the zone (of a zoned route) and the view of a request
// for changes, then calls page.
func (a *API) changes(w http.ResponseWriter, r *http.Request, p Params, zoned bool, page func(http.ResponseWriter, *http.Request, ChangesPage)) {
	zone := ""
	if zoned {
		var err error
		if zone, err = zoneName(Params{Name: p.Name}); err != nil {
			WriteFailure(w, err)
			return
		}
	}
	// ?view= selects the entries of one view, read as every route
	// reads it; the default view's zones are recorded without a view.
	view, viewErr := p.View, p.ViewErr
	if !zoned { // the host parses ?view= on the zone routes only
		view, viewErr = RequestView(r)
		view = a.Views.Named(view)
	}
	if err := a.CheckView(view, viewErr); err != nil {
		WriteFailure(w, err)
		return
	}
	page(w, r, ChangesPage{Zone: zone, View: view,
		DefaultView: view != "" && view == a.Views.Default, Default: a.Views.Default, Limit: DefaultListLimit, MaxLimit: MaxListLimit})
}
