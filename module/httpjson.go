package module

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"Internal Server Error","message":"encoding response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError writes the {error, message} body with the status's reason
// phrase as error.
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: apitypes.ReasonPhrase(status), Message: fmt.Sprintf(format, args...)})
}

// maxProblems is the most problems of a query one 400 names.
const maxProblems = 5

// problemList joins the problems of a request's query for its 400: each
// distinct problem once, at most maxProblems of them, then how many more
// there are; so a query repeating a bad value thousands of times is not
// answered with thousands of lines.
func problemList(problems []string) string {
	var out []string
	seen := map[string]bool{}
	more := 0
	for _, p := range problems {
		switch {
		case seen[p]:
		case len(out) == maxProblems:
			more++
			seen[p] = true
		default:
			out = append(out, p)
			seen[p] = true
		}
	}
	s := strings.Join(out, "; ")
	if more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

// writeBadGateway answers a failed control command: status 500 labelled
// "Bad Gateway", as the service specification lists it.
func writeBadGateway(w http.ResponseWriter, format string, args ...any) {
	writeJSON(w, http.StatusInternalServerError, errorBody{Error: "Bad Gateway", Message: fmt.Sprintf(format, args...)})
}

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

func isTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
