package rest

import (
	"net/http"
	"strings"
)

// NoRoute answers a request that matched no route: 405 with Allow when
// only its method did not match (allowed: the methods of its path,
// Router.Match's), else 404. writeError writes the error body in the
// shape of the request's front end. Moved from module/routes.go's
// serveAPI.
func NoRoute(w http.ResponseWriter, r *http.Request, allowed []string, writeError func(w http.ResponseWriter, status int, format string, args ...any)) {
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method %s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, strings.Join(allowed, ", "))
		return
	}
	writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
}
