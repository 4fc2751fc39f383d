package rest

import (
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// RouteAction is the scope action a route needs: server-wide routes
// (server status and reconcile, the catalog, the webhooks) are server, record changes
// are records, other reads are read, and every other change is zones.
// The specification and the explorer need none. Moved from
// module/auth.go.
func RouteAction(method, template string) auth.Action {
	switch {
	case strings.Contains(template, "/openapi.") || strings.Contains(template, "/asyncapi.") || strings.Contains(template, "/docs"):
		return "" // the specification and explorer: any identity
	case template == WhoamiTemplate:
		return "" // who am I: any identity
	case strings.HasPrefix(template, APIPrefix+"/server/") || strings.HasPrefix(template, APIPrefix+"/catalog") || strings.HasPrefix(template, APIPrefix+"/events/webhooks"):
		return auth.ActionServer // server-wide: status, reconcile, the catalog, the webhooks (their dead letters name every zone)
	case method == http.MethodGet || method == http.MethodHead:
		return auth.ActionRead
	case strings.HasSuffix(template, "/records"):
		return auth.ActionRecords
	default:
		return auth.ActionZones
	}
}
