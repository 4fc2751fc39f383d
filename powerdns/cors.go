package powerdns

import "net/http"

// CORS as PowerDNS's webserver answers it (its apiWrapper): a preflight
// (OPTIONS) of any API path is answered 200, without credentials, with
// these headers; every answer of an authenticated API request carries
// Access-Control-Allow-Origin: *. The origin is the wildcard, never a
// reflected one, and no Access-Control-Allow-Credentials is sent, so a
// browser sends no cookies or cached credentials with a cross-origin
// request: a page of another origin can use this API only with a key it
// was given. Only this API's paths answer so; the zone API's (REST)
// have no CORS headers, as before.
const (
	corsAllowOrigin  = "*"
	corsAllowHeaders = "Content-Type, X-API-Key"
	corsAllowMethods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
	corsMaxAge       = "3600"
)

// withCORS adds Access-Control-Allow-Origin to every route's answers and
// a public OPTIONS route (the preflight) for each path template.
func withCORS(routes []Route) []Route {
	out := make([]Route, 0, len(routes)*2)
	seen := map[string]bool{}
	var templates []string
	for _, rt := range routes {
		handle := rt.Handle
		rt.Handle = func(w http.ResponseWriter, r *http.Request, zone string) {
			w.Header().Set("Access-Control-Allow-Origin", corsAllowOrigin)
			handle(w, r, zone)
		}
		out = append(out, rt)
		if !seen[rt.Template] {
			seen[rt.Template] = true
			templates = append(templates, rt.Template)
		}
	}
	for _, t := range templates {
		out = append(out, Route{Method: http.MethodOptions, Template: t, Public: true, Handle: preflight})
	}
	return out
}

// preflight answers a CORS preflight as PowerDNS does: 200, an empty
// text/plain body, the allowed origin, headers and methods.
func preflight(w http.ResponseWriter, _ *http.Request, _ string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", corsAllowOrigin)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("Content-Type", "text/plain")
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}
