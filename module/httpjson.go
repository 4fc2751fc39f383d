package module

import (
	"fmt"
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/rest"
)

// writeError writes the {error, message} body (rest.WriteError).
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	if rec, ok := w.(*statusRecorder); ok && rec.errorBody != nil {
		rec.errorBody(w, status, fmt.Sprintf(format, args...))
		return
	}
	rest.WriteError(w, status, format, args...)
}
