package module

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// apiPrefix is the path prefix the handler owns.
const apiPrefix = "/api/v1"

// route is one API endpoint: a method and a path template whose segments
// are literals or the parameter {name}.
type route struct {
	method   string
	template string // e.g. /api/v1/zones/{name}/reload
	segments []string
	public   bool // served without authentication
	// op, when set, is the zoneapi_zone_operations_total operation label;
	// the result is success for a 2xx or 3xx answer, else error.
	op     string
	handle func(w http.ResponseWriter, r *http.Request, p params)
}

// params holds the decoded path parameters of a matched route.
type params struct {
	name string
}

// buildRoutes lists every endpoint the handler serves.
func (h *Handler) buildRoutes() []route {
	rs := []route{
		{method: http.MethodGet, template: "/api/v1/health", public: true, handle: h.handleHealth},
		{method: http.MethodGet, template: "/api/v1/ready", public: true, handle: h.handleReady},
		{method: http.MethodGet, template: "/api/v1/server/status", handle: h.handleServerStatus},
		{method: http.MethodPost, template: "/api/v1/server/reconcile", handle: h.handleReconcile, op: "reconcile"},
		{method: http.MethodPost, template: "/api/v1/zones", handle: h.handleCreateZone, op: "create"},
		{method: http.MethodGet, template: "/api/v1/zones", handle: h.handleListZones},
		{method: http.MethodGet, template: "/api/v1/zones/{name}", handle: h.handleGetZone},
		{method: http.MethodDelete, template: "/api/v1/zones/{name}", handle: h.handleDeleteZone, op: "delete"},
		{method: http.MethodPatch, template: "/api/v1/zones/{name}", handle: h.handleModifyZone, op: "modify"},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/retransfer", handle: h.handleRetransfer, op: "retransfer"},
		{method: http.MethodGet, template: "/api/v1/catalog", handle: h.handleGetCatalog},
		{method: http.MethodPost, template: "/api/v1/catalog/reconcile", handle: h.handleReconcileCatalog},
		{method: http.MethodGet, template: "/api/v1/zones/{name}/status", handle: h.handleZoneStatus},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/reload", handle: h.zoneCommand("reload"), op: "reload"},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/freeze", handle: h.zoneCommand("freeze"), op: "freeze"},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/thaw", handle: h.zoneCommand("thaw"), op: "thaw"},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/notify", handle: h.handleNotify, op: "notify"},
		{method: http.MethodGet, template: "/api/v1/zones/{name}/records", handle: h.handleListRecords},
		{method: http.MethodPost, template: "/api/v1/zones/{name}/records", handle: h.handleAddRecord, op: "record_add"},
		{method: http.MethodPut, template: "/api/v1/zones/{name}/records", handle: h.handleUpdateRecord, op: "record_update"},
		{method: http.MethodDelete, template: "/api/v1/zones/{name}/records", handle: h.handleRemoveRecord, op: "record_remove"},
		{method: http.MethodPatch, template: "/api/v1/zones/{name}/records", handle: h.handleBatchRecords, op: "record_batch"},
		{method: http.MethodGet, template: "/api/v1/zones/{name}/export", handle: h.handleExportZone},
	}
	rs = append(rs, h.docsRoutes()...)
	for i := range rs {
		rs[i].segments = strings.Split(strings.TrimPrefix(rs[i].template, "/"), "/")
	}
	return rs
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
// methods allowed on the path when the path matched but the method did not.
func (h *Handler) match(r *http.Request) (*route, params, []string) {
	path := r.URL.EscapedPath()
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var allowed []string
	for i := range h.routes {
		rt := &h.routes[i]
		p, ok := matchSegments(rt.segments, segs)
		if !ok {
			continue
		}
		if rt.method == r.Method || (r.Method == http.MethodHead && rt.method == http.MethodGet) {
			return rt, p, nil
		}
		allowed = append(allowed, rt.method)
	}
	return nil, params{}, allowed
}

// matchSegments matches path segments against a template's segments.
func matchSegments(tmpl, segs []string) (params, bool) {
	var p params
	if len(tmpl) != len(segs) {
		return p, false
	}
	for i, t := range tmpl {
		if t == "{name}" || t == "{file}" { // {file}: an explorer asset
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				v = segs[i] // left for name validation to reject
			}
			p.name = v
			continue
		}
		if t != segs[i] {
			return p, false
		}
	}
	return p, true
}

// unmatchedRoute is the route label of requests that match no endpoint.
const unmatchedRoute = "<unmatched>"

// serveAPI routes one API request: match, authenticate, dispatch. It
// returns the matched route's template (the metrics label; never a raw
// path, which would carry zone names).
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) string {
	rt, p, allowed := h.match(r)
	label := unmatchedRoute
	if rt != nil {
		label = rt.template
	}
	if rt == nil || !rt.public {
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
	if !rt.public && !h.authorize(w, r, rt.method, rt.template, p.name) {
		if rt.op != "" {
			h.audit(r, rt.op, http.StatusForbidden)
		}
		return label
	}
	if !rt.public {
		h.catalogFirstRequest(r.Context())
	}
	rt.handle(w, r, p)
	if rt.op != "" {
		var err error
		status := http.StatusOK
		if sr, ok := w.(*statusRecorder); ok {
			status = sr.status()
		}
		if status >= 400 {
			err = errOpFailed
		}
		observeZoneOp(rt.op, err)
		h.audit(r, rt.op, status)
	}
	return label
}

// errOpFailed marks a failed operation for its metric.
var errOpFailed = errors.New("operation failed")
