package auth

import (
	"net/http"
	"strconv"
)

// The reads an identity may have only MaxExpensiveReads of in flight, as
// the request path bounds them (moved from module/routes.go).

// expensiveReads are the route patterns of the reads whose answers grow
// with the number of zones or records: exports, the PowerDNS API's
// search and its zone with every RRset. GET /zones?all=true is one too
// (ExpensiveRead).
var expensiveReads = map[string]bool{
	"GET /api/v1/zones/{name}/export":                   true,
	"GET /api/v1/servers/localhost/search-data":         true,
	"GET /api/v1/servers/localhost/zones/{name}/export": true,
	"GET /api/v1/servers/localhost/zones/{name}":        true,
}

// ExpensiveRead reports whether the request, matched to the route
// pattern ("METHOD template"), is one of the reads an identity may have
// only MaxExpensiveReads of in flight.
func ExpensiveRead(pattern string, r *http.Request) bool {
	if pattern == "GET /api/v1/zones" {
		all, _ := strconv.ParseBool(r.URL.Query().Get("all"))
		return all
	}
	return expensiveReads[pattern]
}

// LimitExpensiveRead takes one of the identity's expensive-read slots
// (Guard.AcquireExpensiveRead) when the request, matched to the route
// pattern, is an expensive read (ExpensiveRead). When the identity has
// none left it answers the 429 itself (Retry-After) and returns false;
// otherwise the caller must call release when the answer is written. A
// nil RequestGuard (a handler built without provisioning, in tests)
// bounds nothing.
func (g *RequestGuard) LimitExpensiveRead(w http.ResponseWriter, r *http.Request, pattern string) (release func(), ok bool) {
	if g == nil || !ExpensiveRead(pattern, r) {
		return func() {}, true
	}
	release, rej := g.Guard.AcquireExpensiveRead(r, StateOf(r).ID)
	if rej != nil {
		g.Refused(rej.Reason)
		w.Header().Set("Retry-After", strconv.Itoa(rej.RetryAfter))
		g.WriteError(w, rej.Status, "%s", rej.Message)
		return nil, false
	}
	return release, true
}
