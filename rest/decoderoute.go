package rest

import (
	"net/http"
	"reflect"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

// DecodeRouteBody decodes the body of a request matched to the route
// (method and template; body, the type it declares, Route.Body) into v,
// which must point to a value of that type, with DecodeBody's checks
// against the schema that spec's document gives the route. It writes the
// error answer itself (writeError for the route's and the
// specification's, WriteFailure for the body's) and reports whether v
// holds the body. Moved from module/request.go's decodeRequest.
func DecodeRouteBody(w http.ResponseWriter, r *http.Request, method, template string, body reflect.Type, spec func() (*apispec.Document, error), v any, maxBytes int64,
	writeError func(w http.ResponseWriter, status int, format string, args ...any)) bool {
	if body == nil || reflect.TypeOf(v) != reflect.PointerTo(body) {
		writeError(w, http.StatusInternalServerError, "the route of %s %s declares no request body of type %T", r.Method, r.URL.Path, v)
		return false
	}
	d, err := spec()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "building the API specification: %v", err)
		return false
	}
	if err := DecodeBody(w, r, d, method, template, v, maxBytes); err != nil {
		WriteFailure(w, err)
		return false
	}
	return true
}
