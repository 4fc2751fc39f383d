package module

import (
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/internal/localcall"
)

// LocalPrincipal is the identity of in-process calls made through
// LocalTransport, as audit lines name it.
const LocalPrincipal = apirouter.LocalPrincipal

// localServer serves the in-process requests of package localcall by the
// handler's usual path.
type localServer struct{ h *Handler }

// ServeLocal runs the request through the handler; a request for no API
// endpoint answers 404.
func (s localServer) ServeLocal(w http.ResponseWriter, r *http.Request) error {
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
		return nil
	})
	return s.h.ServeHTTP(w, r, next)
}

func registerLocal(h *Handler)   { localcall.Register(localServer{h}) }
func unregisterLocal(h *Handler) { localcall.Unregister(localServer{h}) }

// localIdentity is the identity of a request made by LocalTransport, or
// nil. It may do everything, as the process that holds the handler's
// configuration (and its keys) may.
func localIdentity(r *http.Request) *auth.Identity {
	if localcall.IsLocal(r) {
		return &auth.Identity{ID: LocalPrincipal, Mode: "local"}
	}
	return nil
}

// ErrNoLocalHandler is returned by LocalTransport when no zone_api handler
// is provisioned in this process.
var ErrNoLocalHandler = localcall.ErrNoServer

// LocalTransport returns an http.RoundTripper that serves API requests in
// this process, by the zone_api handler of the current configuration
// (the most recently provisioned one, when several sites have one): no
// socket, no TLS, no token. The request runs through the handler's usual
// path (routing, validation, the zone writers, audit lines naming
// LocalPrincipal) with an identity that may do everything. It is
// localcall.Transport, which the Caddy DNS provider's local form (`dns
// zone_api` without an endpoint) uses without importing this package.
func LocalTransport() http.RoundTripper { return localcall.Transport() }
