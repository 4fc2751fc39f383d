package rest

import (
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The list of every zone named serves, capabilities and adoption: the
// zone service does the work (AllZones, CapabilitiesOf, Adopt); this file
// reads the parameters and writes the answers.

// handleListAllZones answers GET /zones?all=true: every zone named serves
// in every view, with managed, source, view and serial, filtered (type,
// managed, source, view), scoped to the identity's zones and paged like
// the managed list (cursor "name@view").
func (a *API) handleListAllZones(w http.ResponseWriter, r *http.Request, typ, cursor string, limit int) error {
	q := r.URL.Query()
	f := zonemodel.ListFilter{Type: typ, View: q.Get("view"), Source: q.Get("source")}
	switch f.Source {
	case "", zonemodel.ZoneSourceNamedConf, zonemodel.ZoneSourceNZD, zonemodel.ZoneSourceAPI:
	default:
		return fail(http.StatusBadRequest, "source must be named.conf, nzd or api, got %q", f.Source)
	}
	if v := q.Get("managed"); v != "" {
		m, err := strconv.ParseBool(v)
		if err != nil {
			return fail(http.StatusBadRequest, "managed must be true or false, got %q", v)
		}
		f.Managed = &m
	}
	if g := a.grant(r); g.RestrictsZones() {
		f.Allow = func(name, view string) bool { return g.AllowsZoneIn(name, scopeView(view)) }
	}
	s, err := a.services()
	if err != nil {
		return err
	}
	var lister frontend.AllZonesLister = s.Service("")
	zones, next, total, err := lister.AllZones(r.Context(), f, cursor, limit)
	if err != nil {
		return ServiceFailure("", err)
	}
	body := listBody{Zones: make([]string, len(zones)), Count: len(zones), Total: total, Items: make([]apitypes.ZoneEntry, len(zones)), NextCursor: next}
	// The items' managed and serial point into these (two allocations a
	// page, not two an item).
	managed, serials := [2]bool{false, true}, make([]uint32, len(zones))
	for i := range zones {
		z := &zones[i]
		body.Zones[i] = z.Name
		it := apitypes.ZoneEntry{Name: z.Name, Type: z.Type, Created: z.Created, View: z.View, Managed: &managed[0], Source: z.Source}
		if z.Managed {
			it.Managed = &managed[1]
		}
		if z.HasSerial {
			serials[i] = z.Serial
			it.Serial = &serials[i]
		}
		body.Items[i] = it
	}
	writeZonePage(w, &body)
	return nil
}

// scopeView is the view a scope sees a zone of the inventory in: the
// default view's zones are those addressed without a view.
func scopeView(view string) string {
	if view == zonemodel.ZoneViewDefault {
		return ""
	}
	return view
}

// withCapabilities adds the zone's source (from its zonestatus st, nil
// when not loaded) and capabilities (the zone service's ZoneDetails) to
// info (GET /zones/{name}).
func withCapabilities(info *zoneInfo, st *zonemodel.ZoneStatus, managed bool, c zonemodel.Capabilities) {
	switch {
	case managed:
		info.Source = zonemodel.ZoneSourceAPI
	case st == nil:
	case st.Reconfigurable:
		info.Source = zonemodel.ZoneSourceNZD
	default:
		info.Source = zonemodel.ZoneSourceNamedConf
	}
	info.Capabilities = &apitypes.ZoneCapabilities{
		Records: apitypes.Capability(c.Records), Modify: apitypes.Capability(c.Modify), Delete: apitypes.Capability(c.Delete),
		Adopt: apitypes.Capability(c.Adopt), Retransfer: apitypes.Capability(c.Retransfer),
	}
}

// handleAdoptZone brings a zone named serves under management (POST
// /zones/{name}/adopt[?grantUpdateKey=true]): 200 with what was done; 409
// for a zone of named.conf, with the clause to add there, and for a zone
// managed already.
func (a *API) handleAdoptZone(w http.ResponseWriter, r *http.Request, p Params) error {
	var opts zonemodel.AdoptOptions
	if v := r.URL.Query().Get("grantUpdateKey"); v != "" {
		g, err := strconv.ParseBool(v)
		if err != nil {
			return fail(http.StatusBadRequest, "grantUpdateKey must be true or false, got %q", v)
		}
		opts.GrantUpdateKey = g
	}
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	var ad frontend.ZoneAdopter = b
	res, err := ad.Adopt(r.Context(), name, opts)
	if err != nil {
		var le *zonemodel.ServiceError
		if errors.As(err, &le) && le.Kind == zonemodel.ErrNamedConf {
			msg := le.Msg
			if le.Clause != "" {
				msg += "; for the API to change its records, add " + le.Clause + " to its statement in named.conf and run rndc reconfig (the statement with it is in statement)"
			}
			msg += "; to manage it fully, move its statement from named.conf to the new-zone database (docs/migration.md)"
			return &answer{http.StatusConflict, apitypes.AdoptRefusal{Error: apitypes.ReasonPhrase(http.StatusConflict), Message: msg, Clause: le.Clause, Statement: le.Statement}}
		}
		return LifecycleFailure(name, err)
	}
	a.Logger.Info("zone adopted", zap.String("zone", name), zap.String("granted", res.Granted))
	WriteJSON(w, http.StatusOK, apitypes.AdoptResponse{Success: true, Message: "Zone " + name + " adopted", Details: res.Details, Granted: res.Granted})
	return nil
}
