package module

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The 401 messages of the service specification, exactly.
const (
	msgMissingHeader = auth.MsgMissingHeader
	msgBadFormat     = auth.MsgBadFormat
	msgEmptyToken    = auth.MsgEmptyToken
)

// checkBearer validates Authorization header values. It returns a short
// reason and the 401 message, or two empty strings when the header holds a
// well-formed bearer token.
func checkBearer(values []string) (reason, message string) {
	_, reason, message = auth.BearerToken(values)
	return reason, message
}

// provisionAuth loads the authentication mode (basic unless configured),
// the rate limits, and applies the startup guard: basic or disabled auth
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
	mode := "basic"
	var authn auth.Authenticator = auth.Basic{}
	if h.AuthRaw != nil {
		var sel struct {
			Mode string `json:"mode"`
		}
		if err := json.Unmarshal(h.AuthRaw, &sel); err != nil {
			return fmt.Errorf("auth: %v", err)
		}
		if err := auth.CheckMode(sel.Mode); err != nil {
			return err
		}
		mod, err := ctx.LoadModule(h, "AuthRaw")
		if err != nil {
			return fmt.Errorf("auth: %v", err)
		}
		a, ok := mod.(auth.Authenticator)
		if !ok {
			return fmt.Errorf("auth: module %s does not authenticate tokens", sel.Mode)
		}
		mode, authn = sel.Mode, a
	}
	for what, l := range map[string]*auth.RateLimit{"rate_limit": h.RateLimit, "failed_auth_limit": h.FailedAuthLimit} {
		if l != nil {
			if err := l.Validate(); err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
		}
	}
	h.guard = &auth.Guard{Mode: authn, ModeName: mode, Disabled: h.authDisabled,
		PerIdentity: h.RateLimit, FailedAuth: h.FailedAuthLimit, Log: h.authLog, Limits: auth.AcquireLimits()}

	weak := ""
	switch {
	case h.authDisabled:
		weak = "authentication is disabled (disable_auth or DISABLE_AUTH=true): every request is admitted without a token"
	case mode == "basic":
		weak = "auth mode basic accepts any well-formed bearer token"
	}
	if weak == "" {
		return nil
	}
	var exposed []string
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv != nil {
		exposed = auth.Exposed(srv.Listen)
	}
	if len(exposed) == 0 {
		if h.authDisabled {
			h.logger.Warn(weak + "; use this only behind an authenticating gateway or for local development")
		}
		return nil
	}
	if h.RequireAuth {
		return fmt.Errorf("require_auth: %s, and the server listens on %s, reachable from other hosts; configure a real mode (auth static|jwt|k8s_token_review) or bind to loopback", weak, strings.Join(exposed, ", "))
	}
	h.logger.Warn(weak+", and the server listens on addresses reachable from other hosts: anyone who can reach them can manage every zone; configure a real mode (auth static|jwt|k8s_token_review), bind to loopback, or set require_auth to refuse this",
		zap.Strings("listen", exposed))
	return nil
}

// authCtxKey keys the request's authState.
type authCtxKey struct{}

// authState is what authentication learned about a request: who sent it,
// and the zone it acts on once known (for the audit line).
type authState struct {
	id   *auth.Identity
	zone string
	// view is the view the request addresses (its ?view=, else the
	// default view; "" none), for the scope check.
	view string
}

// authOf returns the request's auth state, or an empty one.
func authOf(r *http.Request) *authState {
	if st, ok := r.Context().Value(authCtxKey{}).(*authState); ok {
		return st
	}
	return &authState{}
}

// viewOf returns the view the request addresses, for the scope checks.
func viewOf(r *http.Request) string { return authOf(r).view }

// grantOf returns the request's grant (nil: everything allowed).
func grantOf(r *http.Request) *auth.Grant {
	if id := authOf(r).id; id != nil {
		return id.Grant
	}
	return nil
}

// authenticate checks the bearer token with the configured mode. On
// failure it writes the 401 (or 429, 503) and returns false; on success
// it returns the request carrying the identity, which is also put in the
// {http.auth.user.id} placeholder. Token values are never logged.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if id := localIdentity(r); id != nil { // LocalTransport (local.go)
		ctx := context.WithValue(r.Context(), authCtxKey{}, &authState{id: id})
		return r.WithContext(auth.WithIdentity(ctx, id)), true
	}
	g := h.guard
	if g == nil { // a handler built without Provision (tests): basic mode
		g = &auth.Guard{Mode: auth.Basic{}, ModeName: "basic", Disabled: h.authDisabled, Log: h.authLog}
	}
	id, rej := g.Check(r)
	if rej != nil {
		metrics.authFailures.WithLabelValues(rej.Reason).Inc()
		switch rej.Status {
		case http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Bearer realm="zone_api"`)
		case http.StatusTooManyRequests:
			w.Header().Set("Retry-After", strconv.Itoa(rej.RetryAfter))
		}
		writeError(w, rej.Status, "%s", rej.Message)
		return r, false
	}
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		// Caddy's access log writes it as user_id: the log's form of
		// the identity (a JWT's sub is the client's text).
		repl.Set("http.auth.user.id", logsafe.Text(id.ID))
	}
	ctx := context.WithValue(r.Context(), authCtxKey{}, &authState{id: id})
	return r.WithContext(auth.WithIdentity(ctx, id)), true
}

// routeAction is the scope action a route needs: server-wide routes
// (server status and reconcile, the catalog, the webhooks) are server, record changes
// are records, other reads are read, and every other change is zones.
// The specification and the explorer need none.
func routeAction(method, template string) auth.Action {
	switch {
	case strings.Contains(template, "/openapi.") || strings.Contains(template, "/asyncapi.") || strings.Contains(template, "/docs"):
		return "" // the specification and explorer: any identity
	case template == rest.WhoamiTemplate:
		return "" // who am I: any identity
	case strings.HasPrefix(template, apiPrefix+"/server/") || strings.HasPrefix(template, apiPrefix+"/catalog") || strings.HasPrefix(template, apiPrefix+"/events/webhooks"):
		return auth.ActionServer // server-wide: status, reconcile, the catalog, the webhooks (their dead letters name every zone)
	case method == http.MethodGet || method == http.MethodHead:
		return auth.ActionRead
	case strings.HasSuffix(template, "/records"):
		return auth.ActionRecords
	default:
		return auth.ActionZones
	}
}

// authorize checks the route's action and its {name} zone against the
// identity's scope, before any disk or BIND work, answering 403 when
// either is outside it. An invalid zone name is left for the handler to
// answer 400.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request, method, template, name string) bool {
	zone := ""
	if strings.Contains(template, "{name}") {
		if z, err := zonemodel.NormalizeZoneName(name); err == nil {
			zone = z
			authOf(r).zone = z
		}
	}
	return h.allow(w, r, routeAction(method, template), zone)
}

// authorizeRoute is authorize with the route's own action when it has
// one (the PowerDNS API's routes).
func (h *Handler) authorizeRoute(w http.ResponseWriter, r *http.Request, rt *route, name string) bool {
	if !rt.pdns {
		return h.authorize(w, r, rt.method, rt.template, name)
	}
	zone := ""
	if strings.Contains(rt.template, "{name}") {
		if z, err := zonemodel.NormalizeZoneName(name); err == nil {
			zone = z
		}
	}
	return h.allow(w, r, rt.action, zone)
}

// allow answers 403 and returns false unless the identity may do the
// action (on the zone, when one is given).
func (h *Handler) allow(w http.ResponseWriter, r *http.Request, a auth.Action, zone string) bool {
	st := authOf(r)
	if zone != "" {
		st.zone = zone
	}
	if st.id == nil || a == "" {
		return true
	}
	if err := st.id.Grant.CheckActionIn(st.id.ID, a, zone, st.view); err != nil {
		return h.forbid(w, r, err)
	}
	// Record name and type limits would mean nothing if the same token
	// could create the zone with any records, delete it, or change its
	// update policy: with such limits, the zones action covers only the
	// commands that leave records and policy alone.
	if a == auth.ActionZones && st.id.Grant.RestrictsRecords() && !recordNeutral(r) {
		return h.forbid(w, r, &auth.Denied{Message: st.id.ID + " may not create, delete or reconfigure zones: its scope limits record names or types, which such changes would get round"})
	}
	// Server-wide operations see and touch every zone: an identity
	// limited to some zones may not run them.
	if a == auth.ActionServer && !st.id.Grant.AllowsServer() {
		limit := "some zones"
		if !st.id.Grant.RestrictsZones() {
			limit = "some record names or types"
		}
		return h.forbid(w, r, &auth.Denied{Message: st.id.ID + " is limited to " + limit + "; the catalog covers every zone, as server status and reconcile do"})
	}
	return true
}

// allowRecords answers 403 and returns false unless the identity may
// change every record a record request (or the list of changes of
// another front end, []auth.RecordChange with absolute names) names: the
// one record-level question, auth's CheckRecordChanges, asked with the
// view the request addresses. The REST record routes ask it, and the
// PowerDNS API's PATCH and PUT with rrsets through
// frontend.Options.AllowRecords. Names that do not resolve in the zone
// are left for validation to refuse, unless the scope limits names or
// types (then 400 here).
func (h *Handler) allowRecords(w http.ResponseWriter, r *http.Request, zone string, req any) bool {
	st := authOf(r)
	if zone != "" {
		st.zone = zone
	}
	if st.id == nil {
		return true
	}
	var recs []auth.RecordChange
	switch q := req.(type) {
	case []auth.RecordChange:
		recs = append(recs, q...)
	case *addRecordRequest:
		recs = append(recs, auth.RecordChange{Name: q.Name, Type: q.Type})
	case *removeRecordRequest:
		recs = append(recs, auth.RecordChange{Name: q.Name, Type: q.Type})
	case *updateRecordRequest:
		recs = append(recs, auth.RecordChange{Name: q.Name, Type: q.Type})
	case *batchRequest:
		for i, c := range q.Changes {
			recs = append(recs, auth.RecordChange{Field: fmt.Sprintf("changes[%d]", i), Name: c.Name, Type: c.Type})
		}
	default:
		return h.forbid(w, r, &auth.Denied{Message: st.id.ID + " may not make this change: its scope limits record names or types"})
	}
	if !st.id.Grant.RestrictsRecords() {
		recs = nil // the action and zone are the whole question
	}
	for i, c := range recs {
		fqdn, err := zonemodel.NormalizeRecordName(c.Name, zone)
		if err != nil {
			writeError(w, http.StatusBadRequest, "%sinvalid record name %q: %v", fieldPrefix(c.Field), c.Name, err)
			return false
		}
		recs[i].Name = fqdn
	}
	if err := st.id.Grant.CheckRecordChanges(st.id.ID, zone, st.view, recs); err != nil {
		return h.forbid(w, r, err)
	}
	return true
}

func fieldPrefix(f string) string {
	if f == "" {
		return ""
	}
	return f + ": "
}

// forbid answers 403 with what was missing.
func (h *Handler) forbid(w http.ResponseWriter, r *http.Request, err error) bool {
	st := authOf(r)
	h.authLog.Warn("request outside the identity's scope", zap.String("principal", logsafe.Text(st.id.ID)), zap.String("method", r.Method),
		zap.String("uri", r.RequestURI), zap.String("reason", logReason(err)))
	metrics.authFailures.WithLabelValues("forbidden").Inc()
	writeError(w, http.StatusForbidden, "%s", err.Error())
	return false
}

// logReason is a 403's reason as its log line carries it: it names the
// identity, whose text the client may choose (a JWT's sub), so it is
// escaped and capped as logsafe does, with room for what was missing.
func logReason(err error) string { return logsafe.Limit(err.Error(), 4*logsafe.MaxLen) }

// auditAction names a route's mutation for the audit line: its
// operation label, else (a change without one) its method and template;
// "" for reads.
func auditAction(rt *route) string {
	switch {
	case rt.public:
		return ""
	case rt.op != "":
		return rt.op
	case rt.method == http.MethodGet || rt.method == http.MethodHead:
		return ""
	}
	return rt.method + " " + rt.template
}

// audit logs one mutation at info: who, what, which zone, the outcome.
func (h *Handler) audit(r *http.Request, op string, status int) {
	st := authOf(r)
	principal := "anonymous"
	if st.id != nil {
		principal = st.id.ID
	}
	result := "success"
	if status >= 400 {
		result = "error"
	}
	fields := []zap.Field{zap.String("principal", logsafe.Text(principal)), zap.String("action", op), zap.String("zone", st.zone),
		zap.Int("status", status), zap.String("result", result), zap.String("request_id", frontend.RequestID(r))}
	if st.view != "" {
		fields = append(fields, zap.String("view", st.view))
	}
	h.authLog.Info("audit", fields...)
}

// recordNeutral reports whether a zones-action request leaves the zone's
// records and update policy alone: reload, freeze, thaw, notify,
// retransfer.
func recordNeutral(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	for _, verb := range []string{"/reload", "/freeze", "/thaw", "/notify", "/retransfer"} {
		if strings.HasSuffix(r.Pattern, verb) {
			return true
		}
	}
	return false
}
