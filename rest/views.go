package rest

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// checkView is the failure of a request whose view (requestView's view
// and error) is invalid (400) or not configured (404), nil for a good
// one.
func (a *API) checkView(view string, viewErr error) error {
	if viewErr != nil {
		return fail(http.StatusBadRequest, "invalid view: %v", viewErr)
	}
	t := a.Views
	if view != "" && !slices.Contains(t.Names, view) {
		if !t.Configured() {
			return fail(http.StatusNotFound, "view %q is not configured: zone_api addresses no views (configure them with `view <name> { … }` in the zone_api block)", view)
		}
		return fail(http.StatusNotFound, "view %q is not configured; the views are: %s", view, t.List())
	}
	return nil
}

// serviceFor returns the zone service of the view the request addresses
// (p.View, else the default view), or the failure of a view that is
// invalid (400), not configured (404), or, with views configured and none
// of them the default, not named (400). It runs only once the request is
// authorised completely.
func (a *API) serviceFor(p Params) (*zoneservice.Service, error) {
	if err := a.checkView(p.View, p.ViewErr); err != nil {
		return nil, err
	}
	t := a.Views
	if p.View == "" && t.Configured() && t.Default == "" {
		return nil, fail(http.StatusBadRequest, "named has views and none is the default: name the zone's view with ?view= (one of %s)", t.List())
	}
	s, err := a.services()
	if err != nil {
		return nil, err
	}
	if p.View == "" || p.View == t.Default {
		return s.Service(""), nil
	}
	vs := s.Service(p.View)
	if vs == nil {
		return nil, fail(http.StatusInternalServerError, "view %s has no backend", p.View)
	}
	s.Start(context.Background(), p.View) // the view's start-up reconcile
	return vs, nil
}

// viewEntry is an index entry and its view, in a list of several views.
type viewEntry struct {
	zonestore.Entry
	view string
}

// cursorOf is a list cursor: the zone's name, and "@<view>" when it has
// a view (no zone name holds '@').
func (e viewEntry) cursor() string {
	if e.view == "" {
		return e.Name
	}
	return e.Name + "@" + e.view
}

// before orders entries by name, then view.
func (e viewEntry) before(name, view string) bool {
	return e.Name < name || e.Name == name && e.view < view
}

// listViews answers GET /zones with views configured: the managed zones
// of the view named by ?view=, or of every view, each item with its view;
// in name order, then view; paged by a cursor "<name>[@<view>]"; only the
// zones in views the identity's scope allows.
func (a *API) listViews(w http.ResponseWriter, r *http.Request, p Params, typ, cursor string, limit int) error {
	var backends []*zoneservice.Service
	if p.View != "" || p.ViewErr != nil {
		b, err := a.serviceFor(p)
		if err != nil {
			return err
		}
		backends = []*zoneservice.Service{b}
	} else {
		// Every view: the default view's service (or that of the
		// zones created without a view) and each other view's.
		s, err := a.services()
		if err != nil {
			return err
		}
		root := s.Service("")
		backends = []*zoneservice.Service{root}
		for _, name := range a.Views.Names {
			if vb := s.Service(name); vb != nil && vb != root {
				backends = append(backends, vb)
			}
		}
	}
	g := a.grant(r)
	var all []viewEntry
	for _, vb := range backends {
		es, _, _, err := vb.Store.List(typ, "", 0)
		if err != nil {
			return indexFailure(err)
		}
		for _, e := range es {
			if g.AllowsZoneIn(e.Name, vb.View) {
				all = append(all, viewEntry{e, vb.View})
			}
		}
	}
	slices.SortFunc(all, func(x, y viewEntry) int {
		switch {
		case x.before(y.Name, y.view):
			return -1
		case y.before(x.Name, x.view):
			return 1
		}
		return 0
	})
	cName, cView, _ := strings.Cut(cursor, "@")
	page, views := []zonestore.Entry{}, []string{}
	next := ""
	for _, e := range all {
		if cursor != "" && !(viewEntry{Entry: zonestore.Entry{Name: cName}, view: cView}).before(e.Name, e.view) {
			continue
		}
		if len(page) == limit {
			next = viewEntry{page[len(page)-1], views[len(views)-1]}.cursor()
			break
		}
		page, views = append(page, e.Entry), append(views, e.view)
	}
	body := listBody{Zones: make([]string, len(page)), Count: len(page), Total: len(all), Items: zoneEntries(page, views), NextCursor: next}
	for i, e := range page {
		body.Zones[i] = e.Name
	}
	WriteJSON(w, http.StatusOK, body)
	return nil
}
