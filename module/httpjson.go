package module

import (
	"fmt"
	"net/http"

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

// problemList joins the problems of a request's query for its 400
// (rest.ProblemList).
func problemList(problems []string) string { return rest.ProblemList(problems) }
