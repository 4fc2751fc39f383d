package rest

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// catalogBody answers GET /api/v1/catalog.
type catalogBody struct {
	Zone    string           `json:"zone"`
	Group   string           `json:"group,omitempty"`
	Count   int              `json:"count"`
	Members []catalog.Member `json:"members"`
	// Drift is what a reconcile would fix now.
	Drift *catalog.Report `json:"drift"`
}

// catalogOr404 returns the default view's zone service, answering 404 when no catalog is
// configured.
func (a *API) catalogOr404(w http.ResponseWriter, r *http.Request) (*zoneservice.Service, bool) {
	if a.CatalogZone == "" {
		WriteError(w, http.StatusNotFound, "no catalog zone is configured (zone_api's catalog option)")
		return nil, false
	}
	// The catalog names every zone: an identity limited to some zones
	// was refused by allow (the server action).
	s, ok := a.servicesOr500(w)
	if !ok {
		return nil, false
	}
	return s.Service(""), true
}

// handleGetCatalog lists the catalog's members and the drift from the
// managed zones.
func (a *API) handleGetCatalog(w http.ResponseWriter, r *http.Request, _ Params) {
	b, ok := a.catalogOr404(w, r)
	if !ok {
		return
	}
	members, err := b.CatalogMembers(r.Context())
	if err != nil {
		WriteBadGateway(w, "reading catalog zone %s: %v", a.CatalogZone, err)
		return
	}
	rep, err := b.ReconcileCatalog(r.Context(), false)
	if err != nil {
		WriteBadGateway(w, "comparing catalog zone %s with the managed zones: %v", a.CatalogZone, err)
		return
	}
	if members == nil {
		members = []catalog.Member{}
	}
	WriteJSON(w, http.StatusOK, catalogBody{Zone: a.CatalogZone, Group: a.CatalogGroup, Count: len(members), Members: members, Drift: rep})
}

// handleReconcileCatalog repairs the catalog: members for managed zones
// that lack one, no members for zones that are not managed.
func (a *API) handleReconcileCatalog(w http.ResponseWriter, r *http.Request, _ Params) {
	b, ok := a.catalogOr404(w, r)
	if !ok {
		return
	}
	rep, err := b.ReconcileCatalog(r.Context(), true)
	if err != nil {
		WriteBadGateway(w, "reconciling catalog zone %s: %v", a.CatalogZone, err)
		return
	}
	a.Logger.Info("catalog zone reconciled", zap.String("catalog", a.CatalogZone), zap.Strings("added", rep.Missing), zap.Int("removed", len(rep.Stray)))
	WriteJSON(w, http.StatusOK, rep)
}
