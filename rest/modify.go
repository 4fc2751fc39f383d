package rest

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// handleModifyZone changes a zone's configuration through the zone
// service (showzone, change the named clauses, modzone, showzone again,
// under the zone's lock). A change named refuses changes nothing: 400
// when it names something named does not have (a dnssec-policy), else
// 409 with named's reason.
func (a *API) handleModifyZone(w http.ResponseWriter, r *http.Request, p Params) error {
	name, err := zoneName(p)
	if err != nil {
		return err
	}
	var req modifyZoneRequest
	if !a.Decode(w, r, p, &req) {
		return errAnswered
	}
	change := zonemodel.SettingsChange{AlsoNotify: req.AlsoNotify, AllowTransfer: req.AllowTransfer, AllowUpdate: req.AllowUpdate, Primaries: req.Primaries, DNSSECPolicy: req.DNSSECPolicy, InlineSigning: req.InlineSigning}
	if err := a.ValidateSettings(&change); err != nil {
		return fail(http.StatusBadRequest, "invalid change: %v", err)
	}
	if change.Primaries != nil && !a.AllowPrimaries(w, r, *change.Primaries) {
		return errAnswered
	}
	if change.AlsoNotify != nil && !a.AllowNotify(w, r, *change.AlsoNotify) {
		return errAnswered
	}
	b, err := a.serviceFor(p)
	if err != nil {
		return err
	}
	var mod frontend.SettingsModifier = b
	res, err := mod.Modify(r.Context(), name, &change)
	if err != nil {
		return ServiceFailure(name, err)
	}
	WriteJSON(w, http.StatusOK, modifyResponse{Success: true, Message: "Zone " + name + " modified successfully", Details: res.Details, Config: (*zoneSettings)(res.Config)})
	return nil
}

// handleRetransfer asks named to transfer a secondary zone again. named
// refuses on a primary zone: 409 with its reason.
func (a *API) handleRetransfer(w http.ResponseWriter, r *http.Request, p Params) error {
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	var rt frontend.ZoneRetransferrer = b
	text, err := rt.Retransfer(r.Context(), name)
	if err != nil {
		return ServiceFailure(name, err)
	}
	WriteJSON(w, http.StatusOK, zoneResponse{Success: true, Message: "Retransfer initiated for zone " + name, Details: text})
	return nil
}
