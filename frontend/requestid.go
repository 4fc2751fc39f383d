package frontend

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// RequestID returns the id a request's change is recorded under in the
// history and named in the audit line: the client's X-Request-Id when it
// sent one valid one (zonemodel.CheckRequestID), else the id Caddy
// gave the request (the http.request.uuid placeholder), else "". Every
// front end that records changes uses it, so that one request has one id
// whichever front end served it.
func RequestID(r *http.Request) string {
	if ids := r.Header.Values("X-Request-Id"); len(ids) > 0 && ids[0] != "" && zonemodel.CheckRequestID(ids) == "" {
		return ids[0]
	}
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		if v, ok := repl.GetString("http.request.uuid"); ok {
			return v
		}
	}
	return ""
}
