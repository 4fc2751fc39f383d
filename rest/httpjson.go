package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// WriteJSON writes v as a JSON response with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
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

// answered sends the answer written to w, complete, now, where w holds
// it back until the handler returns (the request path's writer, which
// flushes a change's answer before its audit and log lines): what the
// handler still does (its own log line) is then not part of the
// client's wait either. Any other writer is left as it is.
func answered(w http.ResponseWriter) {
	if h, ok := w.(interface{ Release() }); ok {
		h.Release()
	}
}

// WriteError writes the {error, message} body with the status's reason
// phrase as error.
func WriteError(w http.ResponseWriter, status int, format string, args ...any) {
	WriteJSON(w, status, errorBody{Error: apitypes.ReasonPhrase(status), Message: fmt.Sprintf(format, args...)})
}

// MaxProblems is the most problems of a query one 400 names.
const MaxProblems = 5

// ProblemList joins the problems of a request's query for its 400: each
// distinct problem once, at most MaxProblems of them, then how many more
// there are; so a query repeating a bad value thousands of times is not
// answered with thousands of lines.
func ProblemList(problems []string) string {
	var out []string
	seen := map[string]bool{}
	more := 0
	for _, p := range problems {
		switch {
		case seen[p]:
		case len(out) == MaxProblems:
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

// etag is the ETag of a zone serial.
func etag(serial uint32) string { return `"` + strconv.FormatUint(uint64(serial), 10) + `"` }

// errorBody is the {error, message} body of every error answer.
type errorBody = apitypes.Error
