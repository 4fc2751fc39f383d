package module

import (
	"fmt"
	"net/http"
	"os"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
)

// provisionAuth loads the authentication mode and the rate limits
// (config.Options.LoadAuth) and applies the startup guard: basic or disabled auth
// on a listener reachable from other hosts warns, or with require_auth
// fails.
func (h *Handler) provisionAuth(ctx caddy.Context) error {
	env := os.Getenv("DISABLE_AUTH")
	h.authDisabled = h.DisableAuth || env == "true"
	if env != "" && env != "true" && env != "false" {
		// Only "true" disables authentication; any other value leaves it
		// on, which is the safe reading, but say so.
		h.logger.Warn(fmt.Sprintf("DISABLE_AUTH=%q is not understood: only \"true\" disables authentication (and \"false\" leaves it on), so authentication stays on", env))
	}
	mode, authn, err := h.Options.LoadAuth(ctx)
	if err != nil {
		return err
	}
	h.acc = &auth.RequestGuard{Guard: &auth.Guard{Mode: authn, ModeName: mode, Disabled: h.authDisabled,
		PerIdentity: h.RateLimit, FailedAuth: h.FailedAuthLimit, Log: h.authLog, Limits: auth.AcquireLimits(), LimitName: h.conf.ZoneDir}, Refused: apimetrics.CountAuthFailure, WriteError: writeError}

	var listen []string
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv != nil {
		listen = srv.Listen
	}
	return h.acc.Guard.CheckExposure(listen, h.RequireAuth, h.logger)
}

// access is the request path's authentication and scope checks
// (auth.RequestGuard), built by provisionAuth; a handler built without
// Provision (tests) gets basic mode.
func (h *Handler) access() *auth.RequestGuard {
	if h.acc != nil {
		return h.acc
	}
	g := &auth.Guard{Mode: auth.Basic{}, ModeName: "basic", Disabled: h.authDisabled, Log: h.authLog}
	return &auth.RequestGuard{Guard: g, Refused: apimetrics.CountAuthFailure, WriteError: writeError}
}

// guard is the authentication Guard, nil in a handler built without
// Provision (its expensive reads are then not limited).
func (h *Handler) guard() *auth.Guard {
	if h.acc == nil {
		return nil
	}
	return h.acc.Guard
}

// authenticate authenticates the request (auth.RequestGuard.Authenticate),
// a request of LocalTransport as the local identity.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if id := localIdentity(r); id != nil { // LocalTransport (local.go)
		return auth.Admitted(r, id), true
	}
	return h.access().Authenticate(w, r)
}

// audit logs one mutation at info: who, what, which zone, the outcome.
func (h *Handler) audit(r *http.Request, op string, status int, requestID string) {
	h.authLog.Info("audit", auth.AuditFields(auth.StateOf(r), op, status, requestID)...)
}
