package externaldns

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/externaldns/provider"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// applyChanges applies plan.Changes: every endpoint is checked and turned
// into records first (400, nothing sent, on any problem), then each zone's
// changes go as one UPDATE.
func (h *Handler) applyChanges(w http.ResponseWriter, r *http.Request) {
	var ch Changes
	if !decode(w, r, &ch) {
		return
	}
	svc, err := h.service()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	pr := &provider.Provider{Zones: h.zones, Service: svc}
	// Who asked, for the change history: external-dns sends no
	// credentials, so the identity is the webhook's.
	r = r.WithContext(zoneservice.WithActor(r.Context(), zoneservice.Actor{Identity: "external-dns", Frontend: "externaldns", RequestID: frontend.RequestID(r)}))
	plan, err := pr.Plan(r.Context(), &ch)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v; nothing was changed", err)
		return
	}
	var applied []string
	for _, zu := range plan {
		err := pr.Apply(r.Context(), zu)
		if err == nil {
			applied = append(applied, zu.Zone)
			h.logger.Info("external-dns changes applied", zap.String("zone", zu.Zone), zap.Int("changes", len(zu.Update)))
			continue
		}
		done := "nothing was changed"
		if len(applied) > 0 {
			done = fmt.Sprintf("zone %s was not changed; zones %s were", zu.Zone, strings.Join(applied, ", "))
		}
		if rcode, ok := provider.PrerequisiteFailed(err); ok {
			h.logger.Warn("external-dns changes refused: a prerequisite failed", zap.String("zone", zu.Zone), zap.String("rcode", rcode))
			writeError(w, http.StatusConflict, "zone %s changed since external-dns read it (named answered %s to the update's prerequisites: an updateOld RRset is no longer as read, or a created RRset exists); %s",
				zu.Zone, rcode, done)
			return
		}
		var ce *dnsupdate.ConflictError
		if errors.As(err, &ce) {
			writeError(w, http.StatusConflict, "zone %s: %v; %s", zu.Zone, err, done)
			return
		}
		h.logger.Error("external-dns changes failed", zap.String("zone", zu.Zone), zap.Error(err))
		writeError(w, http.StatusInternalServerError, "zone %s: %v; %s", zu.Zone, err, done)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
