package rest

import (
	"net/http"
	"time"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// whoamiBody is the answer of GET /api/v1/auth/whoami: who the token
// is and what it may do, so that a client (the console) can show only
// what the API would allow.
type whoamiBody struct {
	// ID names the identity as the audit log and the history do.
	ID string `json:"id"`
	// Mode is the authentication mode that admitted it.
	Mode string `json:"mode"`
	// Actions are the actions the identity may take somewhere (read,
	// records, zones, server); the zones, views, names and types of
	// Scopes narrow where.
	Actions []auth.Action `json:"actions"`
	// Server tells whether server-wide operations (server status,
	// reconcile, the catalog, every zone's list) are allowed.
	Server bool `json:"server"`
	// Scopes are the scopes that all apply, none for an identity that
	// may do everything.
	Scopes []auth.Scope `json:"scopes"`
	// Expires is when the credential stops being accepted, if it does.
	Expires *time.Time `json:"expires,omitempty"`
}

// handleWhoami answers the request's identity and its grants.
func (a *API) handleWhoami(w http.ResponseWriter, r *http.Request, _ Params) error {
	id := a.identity(r)
	if id == nil {
		id = &auth.Identity{ID: "anonymous", Mode: "disabled"}
	}
	b := whoamiBody{ID: id.ID, Mode: id.Mode, Actions: []auth.Action{}, Server: id.Grant.AllowsServer(), Scopes: id.Grant.Scopes()}
	for _, act := range auth.Actions {
		if id.Grant.AllowsAction(act) {
			b.Actions = append(b.Actions, act)
		}
	}
	if b.Scopes == nil {
		b.Scopes = []auth.Scope{}
	}
	if !id.Expires.IsZero() {
		t := id.Expires.UTC()
		b.Expires = &t
	}
	WriteJSON(w, http.StatusOK, b)
	return nil
}

// WhoamiTemplate is the route of handleWhoami: any authenticated
// identity may ask it (the host's scope check gives it no action).
const WhoamiTemplate = APIPrefix + "/auth/whoami"
