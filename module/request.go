package module

import (
	"net/http"
	"reflect"

	"github.com/zoneapi/caddy-zoneapi/rest"
)

// decodeRequest decodes the body of the matched route into v, which must
// point to a value of the route's body type (route.body), with package
// rest's checks (rest.DecodeBody: media type, size, duplicate keys, the
// request schema the served specification gives the route, the strict
// decode). It writes the error answer itself and reports whether v holds
// the body.
func (h *Handler) decodeRequest(w http.ResponseWriter, r *http.Request, p params, v any) bool {
	rt := p.route
	if rt == nil || rt.body == nil || reflect.TypeOf(v) != reflect.PointerTo(rt.body) {
		writeError(w, http.StatusInternalServerError, "the route of %s %s declares no request body of type %T", r.Method, r.URL.Path, v)
		return false
	}
	d, err := h.spec()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "building the API specification: %v", err)
		return false
	}
	if err := rest.DecodeBody(w, r, d, rt.method, rt.template, v, MaxBodyBytes); err != nil {
		rest.WriteFailure(w, err)
		return false
	}
	return true
}
