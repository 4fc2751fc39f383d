package rest

import (
	"context"
	"net/http"
	"slices"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// CheckView is the failure of a request whose view (its ?view= and why
// that is not a valid view name) is invalid (400) or not configured
// (404), nil for a good one.
func (a *API) CheckView(view string, viewErr error) error {
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
func (a *API) serviceFor(p Params) (frontend.ZoneAPIService, error) {
	if err := a.CheckView(p.View, p.ViewErr); err != nil {
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

// listManaged answers GET /zones (without all=true): the managed zones
// the identity's scope allows (zoneservice.Server.ListZones), of the view
// named by ?view=, or with views configured and none named, of every
// view, each item with its view; in name order, then view; paged by a
// cursor ("<name>[@<view>]" with views).
func (a *API) listManaged(w http.ResponseWriter, r *http.Request, p Params, typ, cursor string, limit int) error {
	var (
		s   Services
		err error
	)
	if p.View != "" || p.ViewErr != nil || !a.Views.Configured() {
		// One view's (or, without views, the one service's); 404 for a
		// ?view= without views.
		if _, err = a.serviceFor(p); err == nil {
			s, err = a.services()
		}
	} else {
		s, err = a.services() // every view
	}
	if err != nil {
		return err
	}
	page, next, total, err := s.ListZones(a.grant(r), p.View, typ, cursor, limit)
	if err != nil {
		return indexFailure(err)
	}
	body := listBody{Zones: make([]string, len(page)), Count: len(page), Total: total, Items: make([]apitypes.ZoneEntry, len(page)), NextCursor: next}
	for i, e := range page {
		body.Zones[i] = e.Name
		body.Items[i] = apitypes.ZoneEntry{Name: e.Name, Type: e.Type, Created: e.Created, View: e.View}
	}
	writeZonePage(w, &body)
	return nil
}
