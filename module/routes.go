package module

import (
	"sort"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/rest"
)

// apiPrefix is the path prefix the handler owns.
const apiPrefix = apirouter.Prefix

// buildRoutes lists every endpoint the handler serves: the routes of the
// front ends it mounts (package rest's, the change history's, package
// events', the PowerDNS API's, the specification's and explorer's).
func (h *Handler) buildRoutes() []apirouter.Route {
	h.rest = h.newREST()
	rs := apirouter.REST(h.rest.Routes())
	rs = append(rs, apirouter.REST(h.rest.ChangesRoutes(h.changesPage))...)
	h.evts = newEventsAPI(h)
	rs = append(rs, apirouter.Events(h.evts)...)
	rs = append(rs, h.pdnsRoutes()...)
	return append(rs, apirouter.REST(rest.DocsRoutes(h.docsMode()))...)
}

// newRouter returns the request path (package apirouter) over the
// handler's routes.
func (h *Handler) newRouter() *apirouter.Router {
	return apirouter.New(h.buildRoutes(), apirouter.Host{
		Authenticate: h.authenticate, Access: h.access, Limits: func() *auth.RequestGuard { return h.acc },
		Views: h.views.rest, Spec: h.spec, PowerDNS: h.pdnsMount, Audit: h.audit, WriteError: writeError, MaxBodyBytes: MaxBodyBytes,
	})
}

// Routes returns "METHOD template" for every endpoint, sorted; the API
// specification is checked against it.
func (h *Handler) Routes() []string {
	var out []string
	for _, r := range h.buildRoutes() {
		out = append(out, r.Pattern())
	}
	sort.Strings(out)
	return out
}
