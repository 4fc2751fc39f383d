package module

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// apiPrefix is the path prefix the handler owns.
const apiPrefix = "/api/v1"

// route is one API endpoint: a method and a path template (an
// http.ServeMux pattern without the method) whose segments are literals or
// the parameter {name} ({file} for an explorer asset).
type route struct {
	method   string
	template string // e.g. /api/v1/zones/{name}/reload
	param    int    // index of the {name}, {file} or {webhook} segment, or -1
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

// ServeHTTP lets a route be registered on an http.ServeMux; the router
// only looks routes up there (serveAPI dispatches), so it is never called.
func (rt *route) ServeHTTP(http.ResponseWriter, *http.Request) {}

// router matches requests to routes with Go's http.ServeMux patterns
// (method, literal segments, {name} wildcards; HEAD matches GET).
type router struct {
	routes []route
	mux    *http.ServeMux
}

// newRouter registers routes on a ServeMux.
func newRouter(routes []route) *router {
	rr := &router{routes: routes, mux: http.NewServeMux()}
	for i := range rr.routes {
		rt := &rr.routes[i]
		rt.param = -1
		for j, seg := range strings.Split(strings.TrimPrefix(rt.template, "/"), "/") {
			if seg == "{name}" || seg == "{file}" || seg == "{webhook}" {
				rt.param = j
			}
		}
		rr.mux.Handle(rt.pattern(), rt)
	}
	return rr
}

// params holds the matched route and its decoded path parameters.
type params struct {
	route *route
	name  string
	// view is the request's ?view= (requestView), on the routes that
	// take one (takesView); viewErr is why it is not a valid view name.
	view    string
	viewErr error
}

// buildRoutes lists every endpoint the handler serves.
func (h *Handler) buildRoutes() []route {
	a := h.newREST()
	h.rest = a
	rs := restRoutes(a.api.Routes())
	rs = append(rs, []route{
		{method: http.MethodGet, template: "/api/v1/zones/{name}/changes", handle: a.handleListChanges},
		{method: http.MethodGet, template: "/api/v1/changes", handle: a.handleListChanges},
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

// match finds the route for the request. It returns the route (nil when
// none matches the path and method), the decoded parameters, and the
// methods allowed on the path when the path matched but the method did
// not. One trailing slash is ignored; a path the ServeMux would redirect
// to its clean form (//, /./, /../) matches nothing.
func (rr *router) match(r *http.Request) (*route, params, []string) {
	escaped := r.URL.EscapedPath()
	req := r
	if len(escaped) > 1 && strings.HasSuffix(escaped, "/") {
		escaped = strings.TrimSuffix(escaped, "/")
		u := *r.URL
		u.Path, u.RawPath = strings.TrimSuffix(u.Path, "/"), ""
		if u.Path != "" && strings.HasSuffix(r.URL.RawPath, "/") {
			u.RawPath = strings.TrimSuffix(r.URL.RawPath, "/")
		}
		r2 := *r
		r2.URL = &u
		req = &r2
	}
	if rt, ok := rr.lookup(req, r.Method); ok {
		return rt, rt.params(escaped), nil
	}
	var allowed []string
	for i := range rr.routes {
		rt := &rr.routes[i]
		if found, ok := rr.lookup(req, rt.method); ok && found == rt {
			allowed = append(allowed, rt.method)
		}
	}
	return nil, params{}, allowed
}

// lookup asks the ServeMux for the route of req's path under method.
func (rr *router) lookup(req *http.Request, method string) (*route, bool) {
	if req.Method != method {
		r2 := *req
		r2.Method = method
		req = &r2
	}
	hd, pattern := rr.mux.Handler(req)
	rt, ok := hd.(*route)
	return rt, ok && pattern == rt.pattern()
}

// params decodes the route's parameter from the escaped path.
func (rt *route) params(escaped string) params {
	if rt.param < 0 {
		return params{route: rt}
	}
	segs := strings.Split(strings.TrimPrefix(escaped, "/"), "/")
	if rt.param >= len(segs) {
		return params{route: rt}
	}
	v, err := url.PathUnescape(segs[rt.param])
	if err != nil {
		v = segs[rt.param] // left for name validation to reject
	}
	if rt.zoneName != nil {
		v = rt.zoneName(v)
	}
	return params{route: rt, name: v}
}

// unmatchedRoute is the route label of requests that match no endpoint.
const unmatchedRoute = "<unmatched>"

// serveAPI routes one API request: match, authenticate, dispatch. It
// returns the matched route's template (the metrics label; never a raw
// path, which would carry zone names).
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) string {
	rt, p, allowed := h.router.match(r)
	label := unmatchedRoute
	if rt != nil {
		r.Pattern = rt.pattern()
		_, label, _ = strings.Cut(r.Pattern, " ") // the template: no method
	}
	if h.isPDNS(r) {
		// The errors answered here are written in the front end's shape.
		if rec, ok := w.(*statusRecorder); ok {
			rec.errorBody = h.pdnsMount.Error
		}
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
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, "method %s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", "))
			return label
		}
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
		return label
	}
	if takesView(rt) {
		p.view, p.viewErr = requestView(r)
		p.view = h.views.named(p.view)
		// The scope check's view: the one named, else the default.
		authOf(r).view = h.views.resolve(p.view)
	}
	if !rt.public && !h.authorizeRoute(w, r, rt, p.name) {
		if a := auditAction(rt); a != "" {
			h.audit(r, a, http.StatusForbidden)
		}
		return label
	}
	if msg := repeatedQuery(h.spec, rt, r.URL.Query()); msg != "" {
		writeError(w, http.StatusBadRequest, "%s", msg)
		return label
	}
	if expensiveRead(rt, r) {
		release, rej := h.guard.AcquireExpensiveRead(r, authOf(r).id)
		if rej != nil {
			metrics.authFailures.WithLabelValues(rej.Reason).Inc()
			w.Header().Set("Retry-After", strconv.Itoa(rej.RetryAfter))
			writeError(w, rej.Status, "%s", rej.Message)
			return label
		}
		defer release()
	}
	// The start-up reconciles (zones, catalog) run at the handler's
	// backendOr500, once the request is authorised completely.
	if auditAction(rt) != "" {
		r = withActor(r, rt) // who changes what, for the change history
	}
	rt.handle(w, r, p)
	if a := auditAction(rt); a != "" {
		status := http.StatusOK
		if sr, ok := w.(*statusRecorder); ok {
			status = sr.status()
		}
		if rt.op != "" {
			var err error
			if status >= 400 {
				err = errOpFailed
			}
			observeZoneOp(rt.op, err)
		}
		h.audit(r, a, status)
	}
	return label
}

// errOpFailed marks a failed operation for its metric.
var errOpFailed = errors.New("operation failed")

// expensiveReads are the templates of the reads whose answers grow with
// the number of zones or records: exports, the PowerDNS API's search
// and its zone with every RRset. GET /zones?all=true is one too
// (expensiveRead).
var expensiveReads = map[string]bool{
	"GET " + apiPrefix + "/zones/{name}/export":         true,
	"GET /api/v1/servers/localhost/search-data":         true,
	"GET /api/v1/servers/localhost/zones/{name}/export": true,
	"GET /api/v1/servers/localhost/zones/{name}":        true,
}

// expensiveRead reports whether the request is one of the reads an
// identity may have only auth.MaxExpensiveReads of in flight.
func expensiveRead(rt *route, r *http.Request) bool {
	if rt.pattern() == "GET "+apiPrefix+"/zones" {
		all, _ := strconv.ParseBool(r.URL.Query().Get("all"))
		return all
	}
	return expensiveReads[rt.pattern()]
}

// repeatedQuery is the 400 message of a request that gives a query
// parameter more than once, "" when it gives none twice. Only the
// parameters the served specification declares as arrays (the event
// stream's zone and type) may be repeated; a handler reads the first of
// several values, so a repeat would have it act on a request other than
// the one sent (?all=true&all=yes listed every zone). The PowerDNS API's
// parameters, which the specification does not describe, are given
// once too.
func repeatedQuery(spec func() (*apispec.Document, error), rt *route, q url.Values) string {
	var problems []string
	var d *apispec.Document
	for name, values := range q {
		if len(values) > 1 && d == nil {
			d, _ = spec() // only when something is repeated
		}
		if len(values) > 1 && (d == nil || !d.RepeatableQuery(rt.method, rt.template, name)) {
			problems = append(problems, fmt.Sprintf("query parameter %q is given %d times; give it once", name, len(values)))
		}
	}
	sort.Strings(problems)
	return problemList(problems)
}
