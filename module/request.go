package module

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/rest"
)

// decodeRequest decodes the body of the matched route into v, which must
// point to a value of the route's body type (route.body), with package
// rest's checks (rest.DecodeRouteBody over rest.DecodeBody: media type,
// size, duplicate keys, the request schema the served specification
// gives the route, the strict decode). It writes the error answer itself
// and reports whether v holds the body.
func (h *Handler) decodeRequest(w http.ResponseWriter, r *http.Request, p params, v any) bool {
	var rt route // none matched: no body declared
	if p.route != nil {
		rt = *p.route
	}
	return rest.DecodeRouteBody(w, r, rt.method, rt.template, rt.body, h.spec, v, MaxBodyBytes, writeError)
}
