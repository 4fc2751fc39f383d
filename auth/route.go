package auth

import (
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// AllowRoute is Allow for a matched route (moved from module/auth.go):
// the action the route needs, and its {name} zone, when its template has
// one, checked against the identity's scope before any disk or BIND
// work, answering 403 when either is outside it. An invalid zone name is
// left for the route's handler to answer 400.
func (g *RequestGuard) AllowRoute(w http.ResponseWriter, r *http.Request, a Action, template, name string) bool {
	zone := ""
	if strings.Contains(template, "{name}") {
		if z, err := zonemodel.NormalizeZoneName(name); err == nil {
			zone = z
		}
	}
	return g.Allow(w, r, a, zone)
}
