package rest

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// APIPrefix is the path prefix of the REST API's routes.
const APIPrefix = "/api/v1"

// API is the REST front end over the zone service: the handlers of the
// /api/v1 routes (Routes), which decode a request, check its scope, call
// the zone service and encode its answer or map its error (errors.go).
// It knows of its host, the zone_api Caddy module, only what its fields
// give it; the host routes, authenticates and authorises each request
// before a handler runs.
type API struct {
	// Backend returns the zone services, resolved on first use; an error
	// is answered 500 (an unreadable key file, no zone directory).
	Backend func() (Services, error)
	// Decode reads the request body once, checks it against the served
	// specification's schema of the route and decodes it strictly into
	// v, answering the request itself when it fails.
	Decode func(w http.ResponseWriter, r *http.Request, p Params, v any) bool
	// Allow checks that the request's identity may do the action on the
	// zone ("" for none), answering 403 itself when not.
	Allow func(w http.ResponseWriter, r *http.Request, a auth.Action, zone string) bool
	// AllowRecords checks that the identity may change the records a
	// record body (req) names, answering 403 itself when not.
	AllowRecords func(w http.ResponseWriter, r *http.Request, zone string, req any) bool
	// Forbid answers 403 for a refusal the handler decides, logs it and
	// returns false.
	Forbid func(w http.ResponseWriter, r *http.Request, err error) bool
	// AllowPrimaries checks that the identity may name a secondary
	// zone's primaries, answering 403 itself when not.
	AllowPrimaries func(w http.ResponseWriter, r *http.Request, primaries []string) bool
	// AllowNotify checks that the identity may name a zone's
	// also-notify servers, answering 403 itself when not.
	AllowNotify func(w http.ResponseWriter, r *http.Request, servers []string) bool
	// ValidateSettings checks a change of a zone's settings as the zone
	// service's Modify will (zoneservice.ValidateSettings), without I/O:
	// PATCH /zones/{name} answers 400 before it authorises the servers
	// the change names or asks for the service.
	ValidateSettings func(ch *zonemodel.SettingsChange) error
	// Identity is the request's authenticated identity, nil when it has
	// none (authentication off, or a public route without a token).
	Identity func(r *http.Request) *auth.Identity
	// Quiet marks a context whose control commands are logged at debug
	// level only (the readiness probe's).
	Quiet func(ctx context.Context) context.Context

	Logger  *zap.Logger // zone operations
	DNSLog  *zap.Logger // record changes
	RNDCLog *zap.Logger // control commands

	// Views are the configured views.
	Views Views
	// ZoneDir is the zone directory, which the readiness probe checks
	// with CheckZoneDir: nil when it is a directory the process may
	// write, else why not.
	ZoneDir      string
	CheckZoneDir func() error
	// CatalogZone is the catalog zone, "" without one; CatalogGroup its
	// members' group.
	CatalogZone  string
	CatalogGroup string
	// Version is the host's version, which GET /health answers.
	Version string
	// MaxBodyBytes is the largest JSON request body the host reads.
	MaxBodyBytes int64
	// Imports bounds the imports running at once (the process's).
	Imports *ImportGate
}

// listAllParams are the filters only the list of every zone takes (view
// filters it too, and addresses a view in the list of the API's zones).
var listAllParams = []string{"managed", "source"}

// Services are the zone services of the configured views, as the zone
// API sees them (frontend/adapter.REST over *zoneservice.Server).
type Services = frontend.ZoneAPIServer

// Params are a request's path parameter and view, as the host matched
// them.
type Params struct {
	// Name is the decoded {name} segment ("" on routes without one).
	Name string
	// Zone is Name as a canonical zone name when the host has
	// normalised it already (its scope check does), "" when it has not
	// or Name is not a valid zone name: the handler then normalises Name
	// itself (and answers 400 for an invalid one).
	Zone string
	// View is the request's ?view= on the routes that take one, mapped
	// as Views.Named does; ViewErr is why it is not a valid view name.
	View    string
	ViewErr error
	// Route is the host's matched route, handed back to Decode.
	Route any
}

// Views are the configured views (the zero value: none).
type Views struct {
	// Names are every configured view's name, in configuration order.
	Names []string
	// Default is the default view ("" none): requests that name no view
	// address it.
	Default string
}

// Configured reports whether any view is configured.
func (t Views) Configured() bool { return len(t.Names) > 0 }

// List is the configured views for messages.
func (t Views) List() string { return strings.Join(t.Names, ", ") }

// Route is one endpoint of the REST API.
type Route struct {
	// Method and Template are the http.ServeMux pattern's parts; the
	// zone segment of Template is {name}.
	Method   string
	Template string
	// Public routes are served without authentication; AuthOptional
	// ones authenticate a request that carries an Authorization header.
	Public       bool
	AuthOptional bool
	// Op is the zoneapi_zone_operations_total label of a change ("" for
	// reads).
	Op string
	// Body is the type of the request body, decoded by Decode.
	Body reflect.Type
	// Handle serves the request.
	Handle func(w http.ResponseWriter, r *http.Request, p Params)
}

// handlerFunc is a handler of the API: it answers a request that
// succeeds itself and returns the failure of one that does not, which
// serve answers (WriteFailure).
type handlerFunc func(w http.ResponseWriter, r *http.Request, p Params) error

// serve makes h a Route.Handle: a failure h returns is answered by
// WriteFailure, the one mapping of the API's failures to answers.
func serve(h handlerFunc) func(http.ResponseWriter, *http.Request, Params) {
	return func(w http.ResponseWriter, r *http.Request, p Params) {
		if err := h(w, r, p); err != nil {
			WriteFailure(w, err)
		}
	}
}

// bodyOf is the Route.Body of a request body type.
func bodyOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Routes lists the endpoints of the handlers moved here so far, in the
// order the host's route table lists them.
func (a *API) Routes() []Route {
	return []Route{
		{Method: http.MethodGet, Template: APIPrefix + "/health", Public: true, Handle: serve(a.handleHealth)},
		{Method: http.MethodGet, Template: APIPrefix + "/ready", Public: true, AuthOptional: true, Handle: serve(a.handleReady)},
		{Method: http.MethodGet, Template: APIPrefix + "/server/status", Handle: serve(a.handleServerStatus)},
		{Method: http.MethodPost, Template: APIPrefix + "/server/reconcile", Handle: serve(a.handleReconcile), Op: "reconcile"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones", Body: bodyOf[createZoneRequest](), Handle: serve(a.handleCreateZone), Op: "create"},
		{Method: http.MethodGet, Template: APIPrefix + "/zones", Handle: serve(a.handleListZones)},
		{Method: http.MethodGet, Template: APIPrefix + "/zones/{name}", Handle: serve(a.handleGetZone)},
		{Method: http.MethodDelete, Template: APIPrefix + "/zones/{name}", Handle: serve(a.handleDeleteZone), Op: "delete"},
		{Method: http.MethodPatch, Template: APIPrefix + "/zones/{name}", Body: bodyOf[modifyZoneRequest](), Handle: serve(a.handleModifyZone), Op: "modify"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/retransfer", Handle: serve(a.handleRetransfer), Op: "retransfer"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/adopt", Handle: serve(a.handleAdoptZone), Op: "adopt"},
		{Method: http.MethodGet, Template: APIPrefix + "/catalog", Handle: serve(a.handleGetCatalog)},
		{Method: http.MethodPost, Template: APIPrefix + "/catalog/reconcile", Handle: serve(a.handleReconcileCatalog)},
		{Method: http.MethodGet, Template: APIPrefix + "/zones/{name}/status", Handle: serve(a.handleZoneStatus)},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/reload", Handle: serve(a.zoneCommand("reload")), Op: "reload"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/freeze", Handle: serve(a.zoneCommand("freeze")), Op: "freeze"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/thaw", Handle: serve(a.zoneCommand("thaw")), Op: "thaw"},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/notify", Handle: serve(a.handleNotify), Op: "notify"},
		{Method: http.MethodGet, Template: APIPrefix + "/zones/{name}/records", Handle: serve(a.handleListRecords)},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/records", Body: bodyOf[addRecordRequest](), Handle: serve(a.handleAddRecord), Op: "record_add"},
		{Method: http.MethodPut, Template: APIPrefix + "/zones/{name}/records", Body: bodyOf[updateRecordRequest](), Handle: serve(a.handleUpdateRecord), Op: "record_update"},
		{Method: http.MethodDelete, Template: APIPrefix + "/zones/{name}/records", Body: bodyOf[removeRecordRequest](), Handle: serve(a.handleRemoveRecord), Op: "record_remove"},
		{Method: http.MethodPatch, Template: APIPrefix + "/zones/{name}/records", Body: bodyOf[batchRequest](), Handle: serve(a.handleBatchRecords), Op: "record_batch"},
		{Method: http.MethodGet, Template: APIPrefix + "/zones/{name}/export", Handle: serve(a.handleExportZone)},
		{Method: http.MethodPost, Template: APIPrefix + "/zones/{name}/import", Body: bodyOf[importZoneRequest](), Handle: serve(a.handleImportZone), Op: "import"},
		{Method: http.MethodGet, Template: WhoamiTemplate, Handle: serve(a.handleWhoami)},
	}
}

// identity is the request's identity, nil when none.
func (a *API) identity(r *http.Request) *auth.Identity {
	if a.Identity == nil {
		return nil
	}
	return a.Identity(r)
}

// grant is the request's grant (nil: everything allowed).
func (a *API) grant(r *http.Request) *auth.Grant {
	if id := a.identity(r); id != nil {
		return id.Grant
	}
	return nil
}

// services returns the zone services, or the 500 that answers a
// failure to set them up (unreadable key file, missing zone directory).
//
// The first time in the process it also runs the start-up reconciles
// (Services.Start: the zone directory with named, the catalog with the
// index). Handlers call it only once the request is authorised completely
// (its route, zone and records), so that nothing an unauthorised request
// does reaches named or the disk.
func (a *API) services() (Services, error) {
	s, err := a.Backend()
	if err != nil {
		a.Logger.Error("backend unavailable", zap.Error(err))
		return nil, fail(http.StatusInternalServerError, "%v", err)
	}
	s.Start(context.Background(), "")
	return s, nil
}
