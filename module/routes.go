package module

import (
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// apiPrefix is the path prefix the handler owns.
const apiPrefix = "/api/v1"

// route is one API endpoint: a method and a path template (an
// http.ServeMux pattern without the method, rest.Endpoint's) and how the
// handler serves it.
type route struct {
	method   string
	template string // e.g. /api/v1/zones/{name}/reload
	public   bool   // served without authentication
	// authOptional, on a public route, authenticates a request that
	// carries an Authorization header (401 when it fails), so that the
	// handler may show an identity more (GET /ready's zonesNotLoaded).
	authOptional bool
	// op, when set, is the zoneapi_zone_operations_total operation label;
	// the result is success for a 2xx or 3xx answer, else error.
	op string
	// body, when set, is the type of the request body: the handler
	// decodes it with decodeRequest, which checks it against the schema
	// the served specification gives this route. TestRequestBodiesMatchSpec
	// holds the two together.
	body   reflect.Type
	handle func(w http.ResponseWriter, r *http.Request, p params)
	// pdns marks a route of the PowerDNS API (powerdns.go): its {name}
	// is a PowerDNS zone id, its errors are PowerDNS's, and action is
	// the scope action it needs.
	pdns     bool
	action   auth.Action
	zoneName func(string) string
}

// pattern is the route's http.ServeMux pattern, e.g.
// "POST /api/v1/zones/{name}/reload".
func (rt *route) pattern() string { return rt.method + " " + rt.template }

// router matches requests to routes (rest.Router).
type router struct {
	routes []route
	rr     *rest.Router
}

// newRouter registers routes on a rest.Router.
func newRouter(routes []route) *router {
	eps := make([]rest.Endpoint, len(routes))
	for i, rt := range routes {
		eps[i] = rest.Endpoint{Method: rt.method, Template: rt.template, ZoneName: rt.zoneName}
	}
	return &router{routes: routes, rr: rest.NewRouter(eps)}
}

// params holds the matched route and its decoded path parameters.
type params struct {
	route *route
	name  string
	// view is the request's ?view= (rest.RequestView), on the routes that
	// take one (takesView); viewErr is why it is not a valid view name.
	view    string
	viewErr error
}

// buildRoutes lists every endpoint the handler serves.
func (h *Handler) buildRoutes() []route {
	h.rest = h.newREST()
	rs := restRoutes(h.rest.Routes())
	rs = append(rs, []route{
		{method: http.MethodGet, template: "/api/v1/zones/{name}/changes", handle: h.handleListChanges},
		{method: http.MethodGet, template: "/api/v1/changes", handle: h.handleListChanges},
	}...)
	h.evts = newEventsAPI(h)
	rs = append(rs, eventsRoutes(h.evts)...)
	rs = append(rs, h.pdnsRoutes()...)
	return append(rs, h.docsRoutes()...)
}

// Routes returns "METHOD template" for every endpoint, sorted; the API
// specification is checked against it.
func (h *Handler) Routes() []string {
	var out []string
	for _, r := range h.buildRoutes() {
		out = append(out, r.method+" "+r.template)
	}
	sort.Strings(out)
	return out
}

// match finds the route for the request (rest.Router.Match): the route
// (nil when none matches the path and method), the decoded parameters,
// and the methods allowed on the path when only the method did not match.
func (rr *router) match(r *http.Request) (*route, params, []string) {
	i, name, allowed := rr.rr.Match(r)
	if i < 0 {
		return nil, params{}, allowed
	}
	rt := &rr.routes[i]
	return rt, params{route: rt, name: name}, nil
}

// unmatchedRoute is the route label of requests that match no endpoint.
const unmatchedRoute = "<unmatched>"

// serveAPI routes one API request: match, authenticate, dispatch. It
// returns the matched route's template (the metrics label; never a raw
// path, which would carry zone names).
func (h *Handler) serveAPI(w *reqlog.Recorder, r *http.Request) string {
	rt, p, allowed := h.router.match(r)
	label := unmatchedRoute
	if rt != nil {
		r.Pattern = rt.pattern()
		_, label, _ = strings.Cut(r.Pattern, " ") // the template: no method
	}
	if h.isPDNS(r) {
		// The errors answered here are written in the front end's shape.
		w.ErrorBody = h.pdnsMount.Error
		if h.pdnsMount.Request != nil {
			r = h.pdnsMount.Request(r)
		}
	}
	// The request id goes into the audit line, the history and the
	// events: an unsafe one is refused before anything else (even the
	// authentication's log line) uses it.
	if msg := zoneservice.CheckRequestID(r.Header.Values("X-Request-Id")); msg != "" {
		writeError(w, http.StatusBadRequest, "%s", msg)
		return label
	}
	if rt == nil || !rt.public || rt.authOptional && len(r.Header.Values("Authorization")) > 0 {
		var ok bool
		if r, ok = h.authenticate(w, r); !ok {
			return label
		}
	}
	if rt == nil {
		rest.NoRoute(w, r, allowed, writeError)
		return label
	}
	action := auth.AuditAction(rt.public, rt.op, rt.method, rt.template) // "" for reads
	if takesView(rt) {
		p.view, p.viewErr = rest.RequestView(r)
		p.view = h.views.rest().Named(p.view)
		// The scope check's view: the one named, else the default.
		auth.StateOf(r).View = h.views.rest().Resolve(p.view)
	}
	if !rt.public && !h.authorizeRoute(w, r, rt, p.name) {
		if action != "" {
			h.audit(r, action, http.StatusForbidden)
		}
		return label
	}
	if msg := rest.RepeatedQuery(h.spec, rt.method, rt.template, r.URL.Query()); msg != "" {
		writeError(w, http.StatusBadRequest, "%s", msg)
		return label
	}
	release, ok := h.acc.LimitExpensiveRead(w, r, rt.pattern())
	if !ok {
		return label
	}
	defer release()
	// The start-up reconciles (zones, catalog) run at the handler's
	// backendOr500, once the request is authorised completely.
	if action != "" {
		r = withActor(r, rt) // who changes what, for the change history
	}
	rt.handle(w, r, p)
	if action != "" {
		status := w.Status()
		if rt.op != "" {
			var err error
			if status >= 400 {
				err = errOpFailed
			}
			apimetrics.ObserveZoneOp(rt.op, err)
		}
		h.audit(r, action, status)
	}
	return label
}

// errOpFailed marks a failed operation for its metric.
var errOpFailed = errors.New("operation failed")
