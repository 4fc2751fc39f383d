package rest

import (
	"net/http"
	"net/url"
	"strings"
)

// Endpoint is one entry of a Router: a method and a path template (an
// http.ServeMux pattern without the method) whose segments are literals
// or one parameter, {name}, {file} (an explorer asset) or {webhook}.
type Endpoint struct {
	Method   string
	Template string // e.g. /api/v1/zones/{name}/reload
	// ZoneName, when set, maps the decoded parameter (the PowerDNS API's
	// zone ids to zone names).
	ZoneName func(string) string

	param int // index of the parameter's segment, or -1
	index int // its index in the router's endpoints
}

// Pattern is the endpoint's http.ServeMux pattern, e.g.
// "POST /api/v1/zones/{name}/reload".
func (e *Endpoint) Pattern() string { return e.Method + " " + e.Template }

// ServeHTTP lets an endpoint be registered on an http.ServeMux; the
// router only looks endpoints up there (its host dispatches), so it is
// never called.
func (e *Endpoint) ServeHTTP(http.ResponseWriter, *http.Request) {}

// Router matches requests to endpoints with Go's http.ServeMux patterns
// (method, literal segments, {name} wildcards; HEAD matches GET); moved
// from module/routes.go.
type Router struct {
	endpoints []Endpoint
	mux       *http.ServeMux
}

// NewRouter registers endpoints on a ServeMux; Match answers with their
// indexes.
func NewRouter(endpoints []Endpoint) *Router {
	rr := &Router{endpoints: endpoints, mux: http.NewServeMux()}
	for i := range rr.endpoints {
		e := &rr.endpoints[i]
		e.param, e.index = -1, i
		for j, seg := range strings.Split(strings.TrimPrefix(e.Template, "/"), "/") {
			if seg == "{name}" || seg == "{file}" || seg == "{webhook}" {
				e.param = j
			}
		}
		rr.mux.Handle(e.Pattern(), e)
	}
	return rr
}

// Match finds the endpoint of the request. It returns the endpoint's
// index (-1 when none matches the path and method), its decoded
// parameter, and the methods allowed on the path when the path matched
// but the method did not. One trailing slash is ignored; a path the
// ServeMux would redirect to its clean form (//, /./, /../) matches
// nothing.
func (rr *Router) Match(r *http.Request) (int, string, []string) {
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
	if e, ok := rr.lookup(req, r.Method); ok {
		return e.index, e.value(escaped), nil
	}
	var allowed []string
	for i := range rr.endpoints {
		e := &rr.endpoints[i]
		if found, ok := rr.lookup(req, e.Method); ok && found == e {
			allowed = append(allowed, e.Method)
		}
	}
	return -1, "", allowed
}

// lookup asks the ServeMux for the endpoint of req's path under method.
func (rr *Router) lookup(req *http.Request, method string) (*Endpoint, bool) {
	if req.Method != method {
		r2 := *req
		r2.Method = method
		req = &r2
	}
	hd, pattern := rr.mux.Handler(req)
	e, ok := hd.(*Endpoint)
	return e, ok && pattern == e.Pattern()
}

// value decodes the endpoint's parameter from the escaped path.
func (e *Endpoint) value(escaped string) string {
	if e.param < 0 {
		return ""
	}
	segs := strings.Split(strings.TrimPrefix(escaped, "/"), "/")
	if e.param >= len(segs) {
		return ""
	}
	v, err := url.PathUnescape(segs[e.param])
	if err != nil {
		v = segs[e.param] // left for name validation to reject
	}
	if e.ZoneName != nil {
		v = e.ZoneName(v)
	}
	return v
}
