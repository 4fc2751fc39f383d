package module

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/rest"
)

// writeJSON writes v as a JSON response (rest.WriteJSON).
func writeJSON(w http.ResponseWriter, status int, v any) { rest.WriteJSON(w, status, v) }

// writeError writes the {error, message} body (rest.WriteError).
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	if rec, ok := w.(*statusRecorder); ok && rec.errorBody != nil {
		rec.errorBody(w, status, fmt.Sprintf(format, args...))
		return
	}
	rest.WriteError(w, status, format, args...)
}

// maxProblems is the most problems of a query one 400 names.
const maxProblems = rest.MaxProblems

// problemList joins the problems of a request's query for its 400
// (rest.ProblemList).
func problemList(problems []string) string { return rest.ProblemList(problems) }

// checkContentType answers 415 when the request declares a body type other
// than JSON; an absent Content-Type is taken as JSON. It runs before the
// body is read or checked against the schema.
func checkContentType(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		writeError(w, http.StatusUnsupportedMediaType, "request body must be JSON (Content-Type: application/json), got %q", ct)
		return false
	}
	return true
}
