package module

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// List paging bounds.
const (
	defaultListLimit = 100
	maxListLimit     = 1000
)

// zoneResponse is the bindcar-compatible answer of zone mutations.
type zoneResponse struct {
	Success bool      `json:"success"`
	Message string    `json:"message"`
	Details string    `json:"details"`
	Zone    *zoneInfo `json:"zone,omitempty"`
}

// zoneInfo describes a zone: bindcar's ZoneInfo fields (name, zoneType,
// serial, filePath) plus the state parsed from `rndc zonestatus`.
type zoneInfo struct {
	Name     string  `json:"name"`
	ZoneType string  `json:"zoneType"`
	Serial   *uint32 `json:"serial,omitempty"`
	FilePath string  `json:"filePath,omitempty"`
	State    string  `json:"state,omitempty"` // active | frozen
	Dynamic  *bool   `json:"dynamic,omitempty"`
	Secure   *bool   `json:"secure,omitempty"`
	Loaded   *bool   `json:"loaded,omitempty"`
	Nodes    *int    `json:"nodes,omitempty"`
	// LastLoaded is BIND's "last loaded" time, as BIND prints it.
	LastLoaded string `json:"lastLoaded,omitempty"`
	// Managed is true when the zone was created through this API.
	Managed *bool `json:"managed,omitempty"`
	// Config is the zone's configuration from showzone (GET only).
	Config *zoneConfigView `json:"config,omitempty"`
}

// infoFromStatus builds zoneInfo from parsed zonestatus output.
func infoFromStatus(st *rndc.ZoneStatus, managed bool) *zoneInfo {
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

// zoneName validates the {name} path parameter, answering 400 when it is
// not a valid zone name.
func zoneName(w http.ResponseWriter, p params) (string, bool) {
	name, err := zonestore.NormalizeZoneName(p.name)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid zone name %q: %v", p.name, err)
		return "", false
	}
	return name, true
}

// zoneTarget validates the {name} parameter and returns the backend; on
// failure it has answered the request.
func (h *Handler) zoneTarget(w http.ResponseWriter, p params) (*backend, string, bool) {
	name, ok := zoneName(w, p)
	if !ok {
		return nil, "", false
	}
	b, ok := h.backendOr500(w)
	return b, name, ok
}

// handleCreateZone creates a zone: validate, lock, check that neither the
// index nor BIND nor the zone directory has it, write the zone file
// exclusively, `rndc addzone`, record it in the index. A failure after the
// file was written removes the file again; a zone that exists touches
// nothing and answers 409.
func (h *Handler) handleCreateZone(w http.ResponseWriter, r *http.Request, _ params) {
	if !h.checkBody(w, r, "/api/v1/zones") {
		return
	}
	var req zonestore.CreateZoneRequest
	if !decodeBody(w, r, &req) {
		return
	}
	zone, err := req.Normalize(time.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid zone: %v", err)
		return
	}
	if !h.allow(w, r, auth.ActionZones, zone.Name) {
		return
	}
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	ctx := r.Context()
	unlock, err := b.store.Lock(ctx, zone.Name)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "waiting for the lock of zone %s: %v", zone.Name, err)
		return
	}
	defer unlock()

	if _, found, err := b.store.Get(zone.Name); err != nil {
		writeError(w, http.StatusInternalServerError, "reading the zone index: %v", err)
		return
	} else if found {
		writeError(w, http.StatusConflict, "zone %s already exists", zone.Name)
		return
	}
	// A zone that named serves but the index does not know (one from
	// named.conf, say) is caught below: by CreateFile when it uses our file
	// name, else by addzone's "already exists", after which our new file is
	// removed again. Either way nothing of it is touched.

	path := b.store.FilePath(zone.Name)
	if zone.Type == zonestore.TypePrimary {
		data, err := zone.RenderFile()
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid zone: %v", err)
			return
		}
		if _, err := b.store.CreateFile(zone.Name, data); err != nil {
			if errors.Is(err, zonestore.ErrExists) {
				writeError(w, http.StatusConflict, "zone file %s already exists but named does not serve the zone; remove the file or pick another name", path)
				return
			}
			writeError(w, http.StatusInternalServerError, "writing zone file: %v", err)
			return
		}
	} else if _, err := os.Lstat(path); err == nil {
		writeError(w, http.StatusConflict, "zone file %s already exists but named does not serve the zone; remove the file or pick another name", path)
		return
	}

	// Zones accept updates signed with the request's updateKeyName, or
	// else the module's key; transfers they restrict still admit the
	// module's key (record reads use AXFR).
	cfg := zone.BINDConfig(path, b.updateKey)
	h.logger.Debug("adding zone", zap.String("zone", zone.Name), zap.String("command", "addzone"), zap.String("config", cfg))
	text, err := b.rndc.AddZone(ctx, zone.Name, cfg)
	if err != nil {
		// Remove only the file written above: other files of that name
		// may belong to a zone named already serves.
		if zone.Type == zonestore.TypePrimary {
			if rerr := os.Remove(path); rerr != nil {
				h.logger.Error("removing the zone file of a failed create", zap.String("zone", zone.Name), zap.Error(rerr))
			}
		}
		if rndc.IsAlreadyExists(err) {
			writeError(w, http.StatusConflict, "zone %s already exists in named (not created through this API)", zone.Name)
			return
		}
		h.commandFailed(w, "addzone", zone.Name, err)
		return
	}
	// The index is written after addzone: written alongside, its fsync
	// delayed named's own (measured), and a list must not show a zone that
	// may yet fail to be added.
	if err := b.store.Put(zonestore.Entry{Name: zone.Name, Type: zone.Type, Created: time.Now().UTC()}); err != nil {
		// Undo: named must not serve a zone the index does not know.
		if _, derr := b.rndc.DelZone(context.WithoutCancel(ctx), zone.Name, false); derr != nil {
			h.logger.Error("rolling back addzone failed", zap.String("zone", zone.Name), zap.Error(derr))
		}
		h.removeFiles(b, zone.Name)
		writeError(w, http.StatusInternalServerError, "recording zone %s in the index: %v", zone.Name, err)
		return
	}

	info := &zoneInfo{Name: zone.Name, ZoneType: zone.Type, FilePath: path}
	if zone.Type == zonestore.TypePrimary {
		s := zone.Serial
		info.Serial = &s
	}
	h.logger.Info("zone created", zap.String("zone", zone.Name), zap.String("zone_type", zone.Type), zap.Uint32("serial", zone.Serial))
	w.Header().Set("Location", apiPrefix+"/zones/"+url.PathEscape(zone.Name))
	writeJSON(w, http.StatusCreated, zoneResponse{
		Success: true, Message: "Zone " + zone.Name + " created successfully", Details: text, Zone: info,
	})
}

// removeFiles removes a zone's files, logging (not failing on) errors.
func (h *Handler) removeFiles(b *backend, zone string) []string {
	removed, err := b.store.RemoveZoneFiles(zone)
	if err != nil {
		h.logger.Error("removing zone files", zap.String("zone", zone), zap.Error(err))
	}
	return removed
}

// listBody is the answer of GET /api/v1/zones. zones and count keep
// bindcar's shape; items, total and nextCursor add paging.
type listBody struct {
	Zones      []string          `json:"zones"`
	Count      int               `json:"count"`
	Total      int               `json:"total"`
	Items      []zonestore.Entry `json:"items"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// handleListZones lists managed zones from the index, in name order, one
// page at a time (limit, cursor), optionally only one type.
func (h *Handler) handleListZones(w http.ResponseWriter, r *http.Request, _ params) {
	q := r.URL.Query()
	limit := defaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			writeError(w, http.StatusBadRequest, "limit must be an integer from 1 to %d, got %q", maxListLimit, v)
			return
		}
		limit = n
	}
	typ := q.Get("type")
	if typ != "" && typ != "primary" && typ != "secondary" {
		writeError(w, http.StatusBadRequest, "type must be primary or secondary, got %q", typ)
		return
	}
	cursor := q.Get("cursor")
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	entries, next, total, err := listInScope(b.store, grantOf(r), typ, cursor, limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "reading the zone index: %v", err)
		return
	}
	body := listBody{Zones: make([]string, len(entries)), Count: len(entries), Total: total, Items: entries, NextCursor: next}
	if body.Items == nil {
		body.Items = []zonestore.Entry{}
	}
	for i, e := range entries {
		body.Zones[i] = e.Name
	}
	writeJSON(w, http.StatusOK, body)
}

// handleGetZone answers the zone's parsed state from `rndc zonestatus`.
func (h *Handler) handleGetZone(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := h.zoneTarget(w, p)
	if !ok {
		return
	}
	info, _, ok := h.zoneState(w, r, b, name)
	if !ok {
		return
	}
	info.Config = h.zoneConfigFor(r.Context(), b, name)
	writeJSON(w, http.StatusOK, info)
}

// zoneState asks named for the zone's state. A zone named knows but has
// not loaded (a secondary before its first transfer) is described from the
// index with loaded false. On failure it answers the request and returns
// false.
func (h *Handler) zoneState(w http.ResponseWriter, r *http.Request, b *backend, name string) (*zoneInfo, string, bool) {
	entry, managed, err := b.store.Get(name)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "reading the zone index: %v", err)
		return nil, "", false
	}
	st, err := b.rndc.ZoneStatus(r.Context(), name)
	if err != nil {
		if isNotLoaded(err) {
			var re *rndc.Error
			errors.As(err, &re)
			loaded := false
			return &zoneInfo{Name: name, ZoneType: entry.Type, State: "active", Loaded: &loaded, Managed: &managed,
				FilePath: b.store.FilePath(name)}, describe(re), true
		}
		h.commandFailed(w, "zonestatus", name, err)
		return nil, "", false
	}
	return infoFromStatus(st, managed), st.Raw, true
}

// handleZoneStatus answers `rndc zonestatus`: BIND's text in details
// (as bindcar does) and the parsed state in zone.
func (h *Handler) handleZoneStatus(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := h.zoneTarget(w, p)
	if !ok {
		return
	}
	info, raw, ok := h.zoneState(w, r, b, name)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, zoneResponse{
		Success: true, Message: "Zone " + name + " status retrieved", Details: raw, Zone: info,
	})
}

// handleDeleteZone removes a zone from named (`rndc delzone`), then, for
// a zone created through this API, its files and its index entry. A
// managed zone that named no longer knows is still cleaned up.
func (h *Handler) handleDeleteZone(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := h.zoneTarget(w, p)
	if !ok {
		return
	}
	ctx := r.Context()
	unlock, err := b.store.Lock(ctx, name)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "waiting for the lock of zone %s: %v", name, err)
		return
	}
	defer unlock()
	_, managed, err := b.store.Get(name)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "reading the zone index: %v", err)
		return
	}
	text, err := b.rndc.DelZone(ctx, name, false)
	if err != nil && !(rndc.IsNotFound(err) && managed) {
		h.commandFailed(w, "delzone", name, err)
		return
	}
	b.records.Forget(name)
	// Files are removed only for zones this API created: a zone from
	// named's own configuration keeps its files (named says it must also
	// be removed from named.conf; BIND's text is in details).
	var removed []string
	if managed {
		removed = h.removeFiles(b, name)
		if err := b.store.Remove(name); err != nil {
			writeError(w, http.StatusInternalServerError, "removing zone %s from the index: %v", name, err)
			return
		}
	}
	h.logger.Info("zone deleted", zap.String("zone", name), zap.Strings("files", removed))
	writeJSON(w, http.StatusOK, zoneResponse{Success: true, Message: "Zone " + name + " deleted successfully", Details: text})
}

// zoneCommands maps each action route to its rndc call and message.
var zoneCommands = map[string]struct {
	run     func(c *rndc.Client, ctx context.Context, zone string) (string, error)
	message string
}{
	"reload": {(*rndc.Client).Reload, "Zone %s reloaded successfully"},
	"freeze": {(*rndc.Client).Freeze, "Zone %s frozen successfully"},
	"thaw":   {(*rndc.Client).Thaw, "Zone %s thawed successfully"},
	"notify": {(*rndc.Client).Notify, "Notify sent for zone %s"},
}

// zoneCommand returns the handler of one action route (reload, freeze,
// thaw, notify). Freeze and thaw hold the zone's lock so they do not
// interleave with other changes to the zone.
func (h *Handler) zoneCommand(command string) func(http.ResponseWriter, *http.Request, params) {
	zc := zoneCommands[command]
	return func(w http.ResponseWriter, r *http.Request, p params) {
		b, name, ok := h.zoneTarget(w, p)
		if !ok {
			return
		}
		unlock, err := b.store.Lock(r.Context(), name)
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, "waiting for the lock of zone %s: %v", name, err)
			return
		}
		defer unlock()
		text, err := zc.run(b.rndc, r.Context(), name)
		if err != nil {
			h.commandFailed(w, command, name, err)
			return
		}
		if command == "reload" {
			h.logger.Info("zone reloaded", zap.String("zone", name))
		}
		writeJSON(w, http.StatusOK, zoneResponse{Success: true, Message: fmt.Sprintf(zc.message, name), Details: text})
	}
}
