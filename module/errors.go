package module

import (
	"context"
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// The zone API's errors become HTTP answers in package rest (errors.go);
// what is left here hands the module's backend to it.

// backendOr500 returns the backend or answers 500 when it cannot be set up
// (unreadable key file, missing zone directory).
//
// The first time in the process it also runs the start-up reconciles
// (zoneservice.Server.Start: the zone directory with named, the catalog
// with the index). Handlers call it only once the request is authorised
// completely (its route, zone and records), so that nothing an
// unauthorised request does reaches named or the disk.
func (h *Handler) backendOr500(w http.ResponseWriter) (*zoneservice.Server, bool) {
	b, err := h.getBackend()
	if err != nil {
		h.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return nil, false
	}
	b.Start(context.Background(), "")
	return b, true
}
