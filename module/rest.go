package module

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// restAPI is the zone API's REST front end over the zone service: the
// handlers of the /api/v1 routes (zones.go, records.go, zoneconfig.go,
// notify.go, catalog.go, server.go, lifecycle.go), which decode a
// request, check its scope, call the zone service and encode its answer
// or map its error (errors.go). It knows of the Caddy module only what
// its fields give it.
type restAPI struct {
	// backend returns the zone service and what it works on, resolved on
	// first use (Handler.getBackend).
	backend func() (*backend, error)
	// decode reads the request body once, checks it against the served
	// specification's schema of the route and decodes it strictly into
	// v, answering the request itself when it fails
	// (Handler.decodeRequest).
	decode func(w http.ResponseWriter, r *http.Request, p params, v any) bool
	// scopes checks the identity's scope (auth.go).
	scopes scopeChecker
	// allowPrimaries checks that the identity may name a secondary
	// zone's primaries (primaries.go), answering 403 itself.
	allowPrimaries func(w http.ResponseWriter, r *http.Request, primaries []string) bool
	// allowNotify checks that the identity may name a zone's also-notify
	// servers (primaries.go), answering 403 itself.
	allowNotify func(w http.ResponseWriter, r *http.Request, servers []string) bool

	logger  *zap.Logger // zone operations
	dnsLog  *zap.Logger // record changes
	rndcLog *zap.Logger // control commands

	// views are the configured views (views.go).
	views *viewTable

	zoneDir      string
	catalogZone  string // "" without a catalog
	catalogGroup string
}

// scopeChecker checks the authenticated identity of a request against a
// zone, records or the server (Handler implements it, in auth.go). Each
// answers 403 itself and reports false when the request is refused.
type scopeChecker interface {
	allow(w http.ResponseWriter, r *http.Request, a auth.Action, zone string) bool
	allowRecords(w http.ResponseWriter, r *http.Request, zone string, req any) bool
	forbid(w http.ResponseWriter, r *http.Request, err error) bool
}

// newREST builds the handler's REST front end.
func (h *Handler) newREST() *restAPI {
	a := &restAPI{
		backend: h.getBackend, decode: h.decodeRequest, scopes: h, allowPrimaries: primariesCheck(h.primaryNets, h.forbid),
		logger: h.logger, dnsLog: h.dnsLog, rndcLog: h.rndcLog, allowNotify: notifyCheck(h.notifyNets, h.forbid),
		zoneDir: h.zoneDir, catalogZone: h.catalog.zone, catalogGroup: h.catalog.group, views: &h.views,
	}
	return a
}
