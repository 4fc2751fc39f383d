package events

import (
	"errors"
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// HandleChanges answers one page of the change history (GET
// /api/v1/changes, GET /api/v1/zones/{name}/changes) read from log (nil:
// the history is off, 404), in the REST API's bodies; the host has
// resolved p's zone and view and checked the request's scope. Moved from
// module/history.go.
func (e *API) HandleChanges(w http.ResponseWriter, r *http.Request, log frontend.ChangeLog, p Page) {
	if log == nil {
		e.WriteError(w, http.StatusNotFound, "the change history is off (history off in the configuration)")
		return
	}
	var g *auth.Grant
	if id := e.Identity(r); id != nil {
		g = id.Grant
	}
	body, err := ReadChanges(r.URL.Query(), log, g, p)
	var qe *QueryError
	switch {
	case errors.As(err, &qe):
		e.WriteError(w, http.StatusBadRequest, "invalid query: %s", e.ProblemList(qe.Problems))
	case err != nil:
		e.Logger.Error("reading the change history", zap.Error(err))
		e.WriteError(w, http.StatusInternalServerError, "reading the change history: %v", err)
	default:
		e.WriteJSON(w, http.StatusOK, body)
	}
}
