package module

import (
	"context"
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// handleModifyZone changes a zone's configuration through the zone
// service (showzone, change the named clauses, modzone, showzone again,
// under the zone's lock). A change named refuses changes nothing: 400
// when it names something named does not have (a dnssec-policy), else
// 409 with named's reason.
func (a *restAPI) handleModifyZone(w http.ResponseWriter, r *http.Request, p params) {
	name, ok := zoneName(w, p)
	if !ok {
		return
	}
	var req ModifyZoneRequest
	if !a.decode(w, r, p, &req) {
		return
	}
	change := zoneservice.SettingsChange(req)
	if err := change.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid change: %v", err)
		return
	}
	if change.Primaries != nil && !a.allowPrimaries(w, r, *change.Primaries) {
		return
	}
	if change.AlsoNotify != nil && !a.allowNotify(w, r, *change.AlsoNotify) {
		return
	}
	b, ok := a.backendFor(w, p)
	if !ok {
		return
	}
	res, err := b.svc.Modify(r.Context(), name, &change)
	if err != nil {
		a.serviceFailed(w, name, err)
		return
	}
	writeJSON(w, http.StatusOK, modifyResponse{Success: true, Message: "Zone " + name + " modified successfully", Details: res.Details, Config: (*zoneSettings)(res.Config)})
}

// settingsFor reads the zone's configuration for GET; a failure leaves
// the configuration out.
func (a *restAPI) settingsFor(ctx context.Context, b *backend, name string) *zoneSettings {
	zc, err := b.svc.ZoneStatement(ctx, name)
	if err != nil {
		return nil
	}
	return (*zoneSettings)(zoneservice.SettingsOf(zc))
}

// handleRetransfer asks named to transfer a secondary zone again. named
// refuses on a primary zone: 409 with its reason.
func (a *restAPI) handleRetransfer(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := a.zoneTarget(w, p)
	if !ok {
		return
	}
	text, err := b.svc.Retransfer(r.Context(), name)
	if err != nil {
		a.serviceFailed(w, name, err)
		return
	}
	writeJSON(w, http.StatusOK, zoneResponse{Success: true, Message: "Retransfer initiated for zone " + name, Details: text})
}
