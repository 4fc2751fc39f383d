package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// List paging bounds.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// infoFromStatus builds zoneInfo from parsed zonestatus output.
func infoFromStatus(st *zonemodel.ZoneStatus, managed bool) *zoneInfo {
	zi := &zoneInfo{
		Name: st.Name, ZoneType: st.Type, State: "active",
		Dynamic: &st.Dynamic, Secure: &st.Secure, Loaded: &st.Loaded, Nodes: &st.Nodes,
		LastLoaded: st.LastLoaded, Managed: &managed,
	}
	if st.Frozen {
		zi.State = "frozen"
	}
	if st.HasSerial {
		s := st.Serial
		zi.Serial = &s
	}
	if len(st.Files) > 0 {
		zi.FilePath = st.Files[0]
	}
	return zi
}

// zoneName validates the {name} path parameter: 400 when it is not a
// valid zone name. The host's normalised name (Params.Zone) is taken as
// it is.
func zoneName(p Params) (string, error) {
	if p.Zone != "" {
		return p.Zone, nil // the host's, normalised once
	}
	name, err := zonemodel.NormalizeZoneName(p.Name)
	if err != nil {
		return "", fail(http.StatusBadRequest, "invalid zone name %q: %v", p.Name, err)
	}
	return name, nil
}

// zoneTarget validates the {name} parameter and returns the zone service
// of the view the request addresses (serviceFor).
func (a *API) zoneTarget(p Params) (frontend.ZoneAPIService, string, error) {
	name, err := zoneName(p)
	if err != nil {
		return nil, "", err
	}
	b, err := a.serviceFor(p)
	return b, name, err
}

// handleCreateZone decodes and validates a create request and hands it to
// the zone service (package zoneservice), which records the intent, writes
// the zone file, runs addzone and indexes the zone. A create of a zone
// that exists answers 409 with sameConfig; a request with an
// Idempotency-Key is answered as create.go says.
func (a *API) handleCreateZone(w http.ResponseWriter, r *http.Request, p Params) error {
	key, err := idempotencyKeyOf(r)
	if err != nil {
		return err
	}
	var body createZoneRequest
	if !a.Decode(w, r, p, &body) {
		return errAnswered
	}
	req := createRequestOf(&body)
	zone, err := req.Normalize(time.Now())
	if err != nil {
		return fail(http.StatusBadRequest, "invalid zone: %v", err)
	}
	if !a.Allow(w, r, auth.ActionZones, zone.Name) {
		return errAnswered
	}
	if zone.Type == zonemodel.TypeSecondary && req.ZoneConfig != nil && !a.AllowPrimaries(w, r, req.ZoneConfig.Primaries) {
		return errAnswered
	}
	if req.ZoneConfig != nil && !a.AllowNotify(w, r, req.ZoneConfig.AlsoNotify) {
		return errAnswered
	}
	b, err := a.serviceFor(p)
	if err != nil {
		return err
	}
	fp := req.Fingerprint()
	if key == "" {
		return a.createZone(w, r, b, zone, fp, false)
	}
	return a.createWithKey(w, r, b, zone.Name, fp, key, func(w http.ResponseWriter, fp string, keyed bool) error {
		return a.createZone(w, r, b, zone, fp, keyed)
	})
}

// createZone runs the create and answers it: 201 with the zone; for a
// zone that exists, 409 with sameConfig, unless keyed is set and the zone
// was made by this very keyed request (its fingerprint carries the key),
// which answers the 201 the first attempt would have (a retry after an
// unknown outcome that settled as created).
func (a *API) createZone(w http.ResponseWriter, r *http.Request, b zoneMaker, zone *zonemodel.Zone, fp string, keyed bool) error {
	res, err := b.Create(r.Context(), zone, fp)
	var le *zonemodel.ServiceError
	if err == nil && res.Existed && !keyed {
		// The same body made it earlier, without a key (a key would be
		// part of fp): whose request that was is not known.
		err = &zonemodel.ServiceError{Kind: zonemodel.ErrExists, Zone: zone.Name, Msg: "zone " + zone.Name + " already exists", SameConfig: true}
	}
	if errors.As(err, &le) && errors.Is(err, zonemodel.ErrExists) {
		msg := le.Msg + "; it was made by a request with another body"
		if le.SameConfig {
			msg = le.Msg + " with the configuration this request asks for (made by an earlier request with the same body; send an Idempotency-Key to have a retry recognised as yours)"
		}
		return &answer{http.StatusConflict, conflictBody{Error: apitypes.ReasonPhrase(http.StatusConflict), Message: msg, SameConfig: le.SameConfig}}
	}
	if err != nil {
		return LifecycleFailure(zone.Name, err)
	}
	info := &zoneInfo{Name: zone.Name, ZoneType: zone.Type, FilePath: res.File}
	if zone.Type == zonemodel.TypePrimary {
		s := zone.Serial
		info.Serial = &s
	}
	loc := APIPrefix + "/zones/" + ZonePathSegment(zone.Name)
	if view := b.ViewName(); view != "" && view != a.Views.Default {
		loc += "?view=" + url.QueryEscape(view)
		info.View = view
	} else if view != "" {
		info.View = view
	}
	w.Header().Set("Location", loc)
	if res.Existed {
		a.Logger.Info("zone create retried with its Idempotency-Key; the zone it made is answered", zap.String("zone", zone.Name), zap.String("settled", res.Settled))
	} else {
		a.Logger.Info("zone created", zap.String("zone", zone.Name), zap.String("zone_type", zone.Type), zap.Uint32("serial", zone.Serial))
	}
	WriteJSON(w, http.StatusCreated, zoneResponse{
		Success: true, Message: "Zone " + zone.Name + " created successfully", Details: res.Details, Zone: info,
	})
	return nil
}

// zoneMaker is what a create asks of the zone service of its view.
type zoneMaker interface {
	frontend.ZoneCreator
	frontend.ViewNamer
}

// conflictBody is the 409 of a create for a zone that exists: the error
// body and whether the existing zone matches the request.
type conflictBody struct {
	Error      string `json:"error"`
	Message    string `json:"message"`
	SameConfig bool   `json:"sameConfig"`
}

// handleListZones lists managed zones from the index, in name order, one
// page at a time (limit, cursor), optionally only one type; with
// all=true, every zone named serves (handleListAllZones).
func (a *API) handleListZones(w http.ResponseWriter, r *http.Request, p Params) error {
	q := r.URL.Query()
	limit := DefaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			return fail(http.StatusBadRequest, "limit must be an integer from 1 to %d, got %q", MaxListLimit, v)
		}
		limit = n
	}
	typ := q.Get("type")
	if typ != "" && typ != "primary" && typ != "secondary" {
		return fail(http.StatusBadRequest, "type must be primary or secondary, got %q", typ)
	}
	cursor := q.Get("cursor")
	all := false
	if v := q.Get("all"); v != "" {
		var err error
		if all, err = strconv.ParseBool(v); err != nil {
			return fail(http.StatusBadRequest, "all must be true or false, got %q", v)
		}
	}
	if msg := checkListCursor(cursor, all, a.Views.Configured()); msg != "" {
		return fail(http.StatusBadRequest, "%s", msg)
	}
	if all {
		return a.handleListAllZones(w, r, typ, cursor, limit)
	}
	for _, p := range listAllParams {
		if q.Has(p) {
			return fail(http.StatusBadRequest, "%s filters the list of every zone named serves: add all=true", p)
		}
	}
	return a.listManaged(w, r, p, typ, cursor, limit)
}

// handleGetZone answers the zone's parsed state from `rndc zonestatus`.
func (a *API) handleGetZone(w http.ResponseWriter, r *http.Request, p Params) error {
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	var zr interface {
		frontend.CachedZoneReader
		frontend.ZoneDetailer
	} = b
	zs, err := zr.CachedZone(r.Context(), name)
	if err != nil {
		return ServiceFailure(name, err)
	}
	info := infoOfState(zs, name, b.ViewName())
	if a.grant(r).RestrictsRecords() {
		// A token limited to some record names or types reads the zone's
		// state (type, serial, loaded, frozen), not its configuration
		// (key names, notify and transfer targets), its file's path or
		// what the API could do with it.
		info.FilePath = ""
		WriteJSON(w, http.StatusOK, info)
		return nil
	}
	settings, caps := zr.ZoneDetails(r.Context(), name, zs.Status, zs.Managed)
	if settings != nil {
		info.Config = (*zoneSettings)(settings)
	}
	withCapabilities(info, zs.Status, zs.Managed, caps)
	WriteJSON(w, http.StatusOK, info)
	return nil
}

// zoneState asks the zone service for the zone's state. A zone named
// knows but has not loaded (a secondary before its first transfer) is
// described from the index with loaded false.
func (a *API) zoneState(r *http.Request, b zoneStater, name string) (*zoneInfo, string, error) {
	zs, err := b.Zone(r.Context(), name)
	if err != nil {
		return nil, "", ServiceFailure(name, err)
	}
	return infoOfState(zs, name, b.ViewName()), zs.Details, nil
}

// zoneStater is what the zone status route asks of the zone service.
type zoneStater interface {
	frontend.ZoneStateReader
	frontend.ViewNamer
}

// infoOfState is the zone's state as answered: from zonestatus, or, for
// a zone named has not loaded, from the index with loaded false; view is
// the backend's ("" without views).
func infoOfState(zs *zonemodel.ZoneState, name, view string) *zoneInfo {
	if zs.Status == nil {
		loaded, managed := false, zs.Managed
		return &zoneInfo{Name: name, ZoneType: zs.Entry.Type, State: "active", Loaded: &loaded, Managed: &managed, FilePath: zs.File, View: view}
	}
	info := infoFromStatus(zs.Status, zs.Managed)
	info.View = view
	return info
}

// handleZoneStatus answers `rndc zonestatus`: BIND's text in details
// (as bindcar does) and the parsed state in zone.
func (a *API) handleZoneStatus(w http.ResponseWriter, r *http.Request, p Params) error {
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	info, raw, err := a.zoneState(r, b, name)
	if err != nil {
		return err
	}
	if a.grant(r).RestrictsRecords() {
		// As GET /zones/{name}: the state, not the file (BIND's text
		// names it).
		info.FilePath, raw = "", ""
	}
	WriteJSON(w, http.StatusOK, zoneResponse{
		Success: true, Message: "Zone " + name + " status retrieved", Details: raw, Zone: info,
	})
	return nil
}

// handleDeleteZone deletes a zone through the zone lifecycle: `rndc
// delzone`, then, for a zone created through this API, its files, DNSSEC
// keys and index entry, once named's removal is durable. It answers 200
// then, and 202 when named has removed the zone but not yet confirmed that
// the removal survives its restart (the delete is completed later).
//
// A zone the API does not manage (added with `rndc addzone` outside it)
// is deleted only with ?confirm=unmanaged (409 otherwise); a zone of
// named.conf is never (409: delzone cannot delete it durably).
func (a *API) handleDeleteZone(w http.ResponseWriter, r *http.Request, p Params) error {
	var opts zonemodel.DeleteOptions
	switch c := r.URL.Query().Get("confirm"); c {
	case "":
	case "unmanaged":
		opts.Unmanaged = true
	default:
		return fail(http.StatusBadRequest, "confirm must be unmanaged (to delete a zone the API does not manage), got %q", c)
	}
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	var rm frontend.ZoneRemover = b
	res, err := rm.Delete(r.Context(), name, opts)
	if err != nil {
		return LifecycleFailure(name, err)
	}
	if !res.Durable {
		WriteJSON(w, http.StatusAccepted, zoneResponse{Success: true,
			Message: "Zone " + name + " deleted from named, which has not yet confirmed that the removal is durable; " +
				"the delete is completed when it does (GET /api/v1/zones/" + name + " already answers 404)",
			Details: res.Details})
	} else {
		WriteJSON(w, http.StatusOK, zoneResponse{Success: true, Message: "Zone " + name + " deleted successfully", Details: res.Details})
	}
	answered(w)
	a.Logger.Info("zone deleted", zap.String("zone", name), zap.Strings("files", res.Removed), zap.Bool("durable", res.Durable))
	return nil
}

// zoneCommands maps each action route to its zone service operation and
// message.
var zoneCommands = map[string]struct {
	run     func(s zoneCommander, ctx context.Context, zone string) (string, error)
	message string
}{
	"reload": {zoneCommander.Reload, "Zone %s reloaded successfully"},
	"freeze": {zoneCommander.Freeze, "Zone %s frozen successfully"},
	"thaw":   {zoneCommander.Thaw, "Zone %s thawed successfully"},
}

// zoneCommander is what the action routes ask of the zone service.
type zoneCommander interface {
	frontend.ZoneReloader
	frontend.ZoneFreezer
	frontend.ZoneThawer
}

// zoneCommand returns the handler of one action route (reload, freeze,
// thaw): the zone service runs the command under the zone's lock (and
// thaw waits until named has thawed the zone).
func (a *API) zoneCommand(command string) handlerFunc {
	zc := zoneCommands[command]
	return func(w http.ResponseWriter, r *http.Request, p Params) error {
		b, name, err := a.zoneTarget(p)
		if err != nil {
			return err
		}
		text, err := zc.run(b, r.Context(), name)
		if err != nil {
			return ServiceFailure(name, err)
		}
		WriteJSON(w, http.StatusOK, zoneResponse{Success: true, Message: fmt.Sprintf(zc.message, name), Details: text})
		if command == "reload" {
			answered(w)
			a.Logger.Info("zone reloaded", zap.String("zone", name))
		}
		return nil
	}
}

// checkListCursor is the 400 message of a zone list's cursor that no
// list answers ("" for a good one): the nextCursor of the list of the
// API's zones is a zone name ("<name>@<view>" when views are configured),
// that of every zone named serves (all) "<name>@<view>". A cursor of
// neither form (?cursor=%00) was taken as a place in the list and
// answered the whole list.
func checkListCursor(cursor string, all, views bool) string {
	if cursor == "" {
		return ""
	}
	i := strings.LastIndexByte(cursor, '@')
	if all || views && i >= 0 {
		if i < 0 {
			return fmt.Sprintf("cursor %q is not a cursor of the list of every zone (<name>@<view>, the nextCursor of the page before)", cursor)
		}
		name, view := cursor[:i], cursor[i+1:]
		if err := zonemodel.CheckViewName(view); err != nil {
			return fmt.Sprintf("cursor %q: its view: %v", cursor, err)
		}
		// named may serve names the API would not create (the root
		// zone, escaped labels): any printable name up to 255 bytes.
		if name == "" || len(name) > 255 || strings.IndexFunc(name, func(c rune) bool { return c <= ' ' || c > 0x7e }) >= 0 {
			return fmt.Sprintf("cursor %q is not a cursor of this list (<name>@<view>, the nextCursor of the page before)", cursor)
		}
		return ""
	}
	if _, err := zonemodel.NormalizeZoneName(cursor); err != nil {
		return fmt.Sprintf("cursor %q is not a cursor of this list (a zone name, the nextCursor of the page before): %v", cursor, err)
	}
	return ""
}

// ZonePathSegment is the zone's name as a segment of a URL path: escaped
// as a path segment, and the root zone "." as %2E, since a segment "."
// is the segment itself, which URL resolution removes (RFC 3986 §5.2.4:
// /zones/. is /zones/).
func ZonePathSegment(name string) string {
	if name == zonemodel.Root {
		return "%2E"
	}
	return url.PathEscape(name)
}
