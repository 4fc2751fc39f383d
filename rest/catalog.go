package rest

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// catalogBody answers GET /api/v1/catalog.
type catalogBody struct {
	Zone    string                    `json:"zone"`
	Group   string                    `json:"group,omitempty"`
	Count   int                       `json:"count"`
	Members []zonemodel.CatalogMember `json:"members"`
	// Drift is what a reconcile would fix now.
	Drift *zonemodel.CatalogReport `json:"drift"`
}

// catalogKeeper is what the catalog routes ask of the default view's zone
// service.
type catalogKeeper interface {
	frontend.CatalogReader
	frontend.CatalogReconciler
}

// catalogOr404 returns the default view's catalog, or 404 when no
// catalog is configured.
func (a *API) catalogOr404() (catalogKeeper, error) {
	if a.CatalogZone == "" {
		return nil, fail(http.StatusNotFound, "no catalog zone is configured (zone_api's catalog option)")
	}
	// The catalog names every zone: an identity limited to some zones
	// was refused by allow (the server action).
	s, err := a.services()
	if err != nil {
		return nil, err
	}
	return s.Service(""), nil
}

// handleGetCatalog lists the catalog's members and the drift from the
// managed zones.
func (a *API) handleGetCatalog(w http.ResponseWriter, r *http.Request, _ Params) error {
	b, err := a.catalogOr404()
	if err != nil {
		return err
	}
	members, err := b.CatalogMembers(r.Context())
	if err != nil {
		return badGateway("reading catalog zone %s: %v", a.CatalogZone, err)
	}
	rep, err := b.ReconcileCatalog(r.Context(), false)
	if err != nil {
		return badGateway("comparing catalog zone %s with the managed zones: %v", a.CatalogZone, err)
	}
	if members == nil {
		members = []zonemodel.CatalogMember{}
	}
	WriteJSON(w, http.StatusOK, catalogBody{Zone: a.CatalogZone, Group: a.CatalogGroup, Count: len(members), Members: members, Drift: rep})
	return nil
}

// handleReconcileCatalog repairs the catalog: members for managed zones
// that lack one, no members for zones that are not managed.
func (a *API) handleReconcileCatalog(w http.ResponseWriter, r *http.Request, _ Params) error {
	b, err := a.catalogOr404()
	if err != nil {
		return err
	}
	rep, err := b.ReconcileCatalog(r.Context(), true)
	if err != nil {
		return badGateway("reconciling catalog zone %s: %v", a.CatalogZone, err)
	}
	a.Logger.Info("catalog zone reconciled", zap.String("catalog", a.CatalogZone), zap.Strings("added", rep.Missing), zap.Int("removed", len(rep.Stray)))
	WriteJSON(w, http.StatusOK, rep)
	return nil
}
