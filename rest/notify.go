package rest

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// handleNotify asks the zone service to notify the zone's secondaries
// (zoneservice.Service.Notify: `rndc notify`, then a NOTIFY of its own to
// the zone's also-notify servers and the catalog's) and lists each
// server with its acknowledgement, and the serial.
func (a *API) handleNotify(w http.ResponseWriter, r *http.Request, p Params) error {
	b, name, err := a.zoneTarget(p)
	if err != nil {
		return err
	}
	var n frontend.ZoneNotifier = b
	res, err := n.Notify(r.Context(), name)
	if err != nil {
		return ServiceFailure(name, err)
	}
	servers := make([]notifiedServer, len(res.Servers))
	for i, s := range res.Servers {
		servers[i] = notifiedServer(s)
	}
	WriteJSON(w, http.StatusOK, notifyResponse{
		Success: true, Message: "Notify sent for zone " + name, Details: res.Details, Serial: res.Serial, Servers: servers,
	})
	return nil
}
