package module

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend/adapter"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// newREST builds the handler's REST front end (package rest's API); a
// handler built without Provision (unit tests) gets a gate of imports of
// its own.
func (h *Handler) newREST() *rest.API {
	imports := h.imports
	if imports == nil {
		imports = newImportGate()
	}
	return &rest.API{
		Backend: func() (rest.Services, error) {
			b, err := h.getBackend()
			return adapter.REST(b), err // nil, not a nil *zoneservice.Server in an interface, on err
		},
		Decode: func(w http.ResponseWriter, r *http.Request, p rest.Params, v any) bool {
			rt, _ := p.Route.(*apirouter.Route)
			return h.router.Decode(w, r, apirouter.Params{Route: rt, Name: p.Name, View: p.View, ViewErr: p.ViewErr}, v)
		},
		Allow: h.access().Allow, AllowRecords: h.access().AllowRecords, Forbid: h.access().Forbid,
		AllowPrimaries:   auth.PrimariesPolicy.Checker(h.conf.PrimaryNets, auth.ViewOf, h.access().Forbid),
		AllowNotify:      auth.NotifyPolicy.Checker(h.conf.NotifyNets, auth.ViewOf, h.access().Forbid),
		ValidateSettings: zoneservice.ValidateSettings,
		Identity:         func(r *http.Request) *auth.Identity { return auth.StateOf(r).ID },
		Quiet:            reqlog.Quiet,
		Logger:           h.logger, DNSLog: h.dnsLog, RNDCLog: h.rndcLog,
		Views:   h.views.rest(),
		ZoneDir: h.conf.ZoneDir, CheckZoneDir: func() error { return zonestore.CheckDir(h.conf.ZoneDir) }, CatalogZone: h.conf.Catalog.Zone, CatalogGroup: h.conf.Catalog.Group,
		Version: Version,

		MaxBodyBytes: MaxBodyBytes, Imports: imports,
	}
}

// newImportGate returns a gate of the imports at once (docs/import.md),
// which the REST and PowerDNS imports share, counted in the
// zoneapi_imports metric.
func newImportGate() *rest.ImportGate {
	return rest.NewImportGate(rest.MaxImports, rest.MaxImportsPerIdentity, apimetrics.AddImports)
}
