// Package apirouter is zone_api's request path, the one every front end it
// mounts shares: the route table (Route, matched by rest.Router) and
// Router.Serve, which matches a request, authenticates it, checks its
// route and zone against the identity's scope, checks its query, limits
// expensive reads, dispatches it to the front end's handler, and writes
// the audit line and the operation metric of a change. The Caddy handler
// (package module) lists the routes of the front ends it mounts and gives
// the Router what it needs of it as a Host.
package apirouter

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Prefix is the path prefix the handler owns.
const Prefix = "/api/v1"

// Route is one API endpoint: a method and a path template (an
// http.ServeMux pattern without the method, rest.Endpoint's) and how the
// handler serves it.
type Route struct {
	Method   string
	Template string // e.g. /api/v1/zones/{name}/reload
	Public   bool   // served without authentication
	// AuthOptional, on a public route, authenticates a request that
	// carries an Authorization header (401 when it fails), so that the
	// handler may show an identity more (GET /ready's zonesNotLoaded).
	AuthOptional bool
	// Op, when set, is the zoneapi_zone_operations_total operation label;
	// the result is success for a 2xx or 3xx answer, else error.
	Op string
	// Body, when set, is the type of the request body: the handler
	// decodes it with Router.Decode, which checks it against the schema
	// the served specification gives this route. TestRequestBodiesMatchSpec
	// holds the two together.
	Body   reflect.Type
	Handle func(w http.ResponseWriter, r *http.Request, p Params)
	// PDNS marks a route of the PowerDNS API: its {name} is a PowerDNS
	// zone id, its errors are PowerDNS's, and Action is the scope action
	// it needs.
	PDNS     bool
	Action   auth.Action
	ZoneName func(string) string

	// pattern is Pattern's value, set by New: a request's pattern and
	// its metrics label are then not concatenated again per request.
	pattern string
}

// Pattern is the route's http.ServeMux pattern, e.g.
// "POST /api/v1/zones/{name}/reload".
func (rt *Route) Pattern() string {
	if rt.pattern != "" {
		return rt.pattern
	}
	return rt.Method + " " + rt.Template
}

// TakesView reports whether a route addresses zones, so that ?view=
// applies to it: the REST zone and record routes (not the PowerDNS API's,
// which knows no views, nor the server-wide ones).
func (rt *Route) TakesView() bool {
	return rt != nil && !rt.PDNS && strings.HasPrefix(rt.Template, Prefix+"/zones")
}

// Params holds the matched route and its decoded path parameters.
type Params struct {
	Route *Route
	Name  string
	// View is the request's ?view= (rest.RequestView), on the routes that
	// take one (TakesView); ViewErr is why it is not a valid view name.
	View    string
	ViewErr error
}

// Host is what the request path needs of the Caddy handler, given once
// (New) as functions that read the handler at each call.
type Host struct {
	// Authenticate authenticates the request: the request with its
	// identity, or false once it answered.
	Authenticate func(w http.ResponseWriter, r *http.Request) (*http.Request, bool)
	// Access is the scope checks (auth.RequestGuard); Limits, nil in a
	// handler built without Provision, limits the expensive reads.
	Access, Limits func() *auth.RequestGuard
	// Views are the configured views.
	Views func() rest.Views
	// Spec is the served specification, which queries and bodies are
	// checked against.
	Spec func() (*apispec.Document, error)
	// PowerDNS is the PowerDNS API's mount, nil when it is not mounted.
	PowerDNS *frontend.Mount
	// Audit writes the audit line of a change, with the request's id
	// (frontend.RequestID, which Serve looks up once for the line and
	// the change history both).
	Audit func(r *http.Request, action string, status int, requestID string)
	// WriteError writes the error answers of the request path.
	WriteError func(w http.ResponseWriter, status int, format string, args ...any)
	// MaxBodyBytes bounds a request body (Decode).
	MaxBodyBytes int64
}

// Router matches requests to routes (rest.Router) and serves them.
type Router struct {
	routes []Route
	rr     *rest.Router
	host   Host
}

// New registers routes on a rest.Router.
func New(routes []Route, host Host) *Router {
	routes = slices.Clone(routes)
	eps := make([]rest.Endpoint, len(routes))
	for i, rt := range routes {
		eps[i] = rest.Endpoint{Method: rt.Method, Template: rt.Template, ZoneName: rt.ZoneName}
		routes[i].pattern = rt.Method + " " + rt.Template
	}
	return &Router{routes: routes, rr: rest.NewRouter(eps), host: host}
}

// Match finds the route for the request (rest.Router.Match): the route
// (nil when none matches the path and method), the decoded parameters,
// and the methods allowed on the path when only the method did not match.
func (rr *Router) Match(r *http.Request) (*Route, Params, []string) {
	i, name, allowed := rr.rr.Match(r)
	if i < 0 {
		return nil, Params{}, allowed
	}
	rt := &rr.routes[i]
	return rt, Params{Route: rt, Name: name}, nil
}

// unmatchedRoute is the route label of requests that match no endpoint.
const unmatchedRoute = "<unmatched>"

// Serve routes one API request: match, authenticate, dispatch. It
// returns the matched route's template (the metrics label; never a raw
// path, which would carry zone names).
func (rr *Router) Serve(w *reqlog.Recorder, r *http.Request) string {
	h := &rr.host
	rt, p, allowed := rr.Match(r)
	label := unmatchedRoute
	if rt != nil {
		r.Pattern = rt.Pattern()
		_, label, _ = strings.Cut(r.Pattern, " ") // the template: no method
	}
	if h.PowerDNS != nil && h.PowerDNS.Owns(r.URL.Path) {
		// The errors answered here are written in the front end's shape.
		w.ErrorBody = h.PowerDNS.Error
		if h.PowerDNS.Request != nil {
			r = h.PowerDNS.Request(r)
		}
	}
	// The request id goes into the audit line, the history and the
	// events: an unsafe one is refused before anything else (even the
	// authentication's log line) uses it.
	if msg := zonemodel.CheckRequestID(r.Header.Values("X-Request-Id")); msg != "" {
		h.WriteError(w, http.StatusBadRequest, "%s", msg)
		return label
	}
	if rt == nil || !rt.Public || rt.AuthOptional && len(r.Header.Values("Authorization")) > 0 {
		var ok bool
		if r, ok = h.Authenticate(w, r); !ok {
			return label
		}
	}
	if rt == nil {
		rest.NoRoute(w, r, allowed, h.WriteError)
		return label
	}
	action := auth.AuditAction(rt.Public, rt.Op, rt.Method, rt.Template) // "" for reads
	if rt.TakesView() {
		views := h.Views()
		p.View, p.ViewErr = rest.RequestView(r)
		p.View = views.Named(p.View)
		// The scope check's view: the one named, else the default.
		auth.StateOf(r).View = views.Resolve(p.View)
	}
	if !rt.Public && !rr.authorize(w, r, rt, p.Name) {
		if action != "" {
			h.Audit(r, action, http.StatusForbidden, frontend.RequestID(r))
		}
		return label
	}
	if msg := rest.RepeatedQuery(h.Spec, rt.Method, rt.Template, r.URL.Query()); msg != "" {
		h.WriteError(w, http.StatusBadRequest, "%s", msg)
		return label
	}
	release, ok := h.Limits().LimitExpensiveRead(w, r, rt.Pattern())
	if !ok {
		return label
	}
	defer release()
	// The start-up reconciles (zones, catalog) run at the handler's
	// backendOr500, once the request is authorised completely.
	// A change's request id, for its history entry and its audit line:
	// looked up once (Caddy's {http.request.uuid} goes through its
	// replacer and records the id in the access log's fields each time).
	var requestID string
	if action != "" {
		requestID = frontend.RequestID(r)
		r = withActor(r, rt, requestID) // who changes what, for the change history
	}
	if action != "" {
		// A change's answer, once complete, leaves before its audit line,
		// its metric and the request's log lines are written: the client
		// does not wait for them (reqlog.Recorder.Hold: same bytes on the
		// wire; a next request on the connection is still read after
		// them).
		w.Hold()
	}
	rt.Handle(w, r, p)
	if action != "" {
		w.Release()
		status := w.Status()
		if rt.Op != "" {
			var err error
			if status >= 400 {
				err = errOpFailed
			}
			apimetrics.ObserveZoneOp(rt.Op, err)
		}
		h.Audit(r, action, status, requestID)
	}
	return label
}

// errOpFailed marks a failed operation for its metric.
var errOpFailed = errors.New("operation failed")

// authorize checks the route's action (rest.RouteAction, or the PowerDNS
// API route's own) and its {name} zone against the identity's scope
// (auth.RequestGuard.AllowRoute).
func (rr *Router) authorize(w http.ResponseWriter, r *http.Request, rt *Route, name string) bool {
	a := rt.Action
	if !rt.PDNS {
		a = rest.RouteAction(rt.Method, rt.Template)
	}
	return rr.host.Access().AllowRoute(w, r, a, rt.Template, name)
}

// LocalPrincipal is the identity of in-process calls made through
// LocalTransport, as audit lines name it.
const LocalPrincipal = "zone_api.local"

// withActor puts the request's actor (for the change history) in its
// context: the identity as the audit line names it, the front end and
// the request id (frontend.RequestID: X-Request-Id when the client sent
// one, else Caddy's {http.request.uuid}).
func withActor(r *http.Request, rt *Route, requestID string) *http.Request {
	st := auth.StateOf(r)
	a := zonemodel.Actor{Identity: "anonymous", Frontend: "rest", RequestID: requestID}
	if st.ID != nil {
		a.Identity = st.ID.ID
		if st.ID.ID == LocalPrincipal {
			a.Frontend = "caddydns"
		}
	}
	if rt.PDNS {
		a.Frontend = "powerdns"
	}
	return r.WithContext(zonemodel.WithActor(r.Context(), a))
}

// Decode decodes the body of the matched route into v, which must point
// to a value of the route's body type (Route.Body), with package rest's
// checks (rest.DecodeRouteBody over rest.DecodeBody: media type, size,
// duplicate keys, the request schema the served specification gives the
// route, the strict decode). It writes the error answer itself and
// reports whether v holds the body.
func (rr *Router) Decode(w http.ResponseWriter, r *http.Request, p Params, v any) bool {
	var rt Route // none matched: no body declared
	if p.Route != nil {
		rt = *p.Route
	}
	return rest.DecodeRouteBody(w, r, rt.Method, rt.Template, rt.Body, rr.host.Spec, v, rr.host.MaxBodyBytes, rr.host.WriteError)
}

// REST makes package rest's routes (rest.API.Routes, rest.DocsRoutes)
// routes of the request path: each handler gets the matched route's
// parameters as rest.Params.
func REST(rs []rest.Route) []Route {
	out := make([]Route, len(rs))
	for i, rr := range rs {
		handle := rr.Handle
		out[i] = Route{Method: rr.Method, Template: rr.Template, Public: rr.Public, AuthOptional: rr.AuthOptional, Op: rr.Op, Body: rr.Body}
		out[i].Handle = func(w http.ResponseWriter, r *http.Request, p Params) {
			handle(w, r, rest.Params{Name: p.Name, Zone: auth.ScopedZone(r), View: p.View, ViewErr: p.ViewErr, Route: p.Route})
		}
	}
	return out
}

// Events are package events' endpoints (the event stream, the webhooks'
// state and retry) as routes of the request path.
func Events(e *events.API) []Route {
	return []Route{
		{Method: http.MethodGet, Template: Prefix + "/events", Handle: func(w http.ResponseWriter, r *http.Request, _ Params) { e.HandleStream(w, r) }},
		{Method: http.MethodGet, Template: Prefix + "/events/webhooks", Handle: func(w http.ResponseWriter, r *http.Request, _ Params) { e.HandleWebhooks(w, r) }},
		{Method: http.MethodPost, Template: Prefix + "/events/webhooks/{webhook}/retry", Handle: func(w http.ResponseWriter, r *http.Request, p Params) { e.HandleRetry(w, r, p.Name) }, Op: "webhook_retry"},
	}
}

// Mounted are the routes of a mounted front end (the PowerDNS API) built
// with opts, as routes of the request path: its {name} decoded by the
// mount's ZoneName, its errors in its shape (PDNS).
func Mounted(m *frontend.Mount, opts frontend.Options) []Route {
	var out []Route
	for _, pr := range m.Routes(opts) {
		out = append(out, Route{Method: pr.Method, Template: pr.Template, Op: pr.Op, PDNS: true, Public: pr.Public, ZoneName: m.ZoneName,
			Action: pr.Action, Handle: func(w http.ResponseWriter, r *http.Request, p Params) { pr.Handle(w, r, p.Name) }})
	}
	return out
}
