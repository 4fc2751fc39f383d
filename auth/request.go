package auth

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The request path's authentication and scope checks, as zone_api runs
// them for every front end it mounts (moved from module/auth.go): a
// RequestGuard authenticates a request (Guard.Check), then answers 403
// for an action, zone or record outside the identity's scope. What it
// learns rides in the request's context as its State.

// stateKey keys the request's State.
type stateKey struct{}

// State is what authentication learned about a request: who sent it,
// and the zone it acts on once known (for the audit line).
type State struct {
	ID   *Identity
	Zone string
	// View is the view the request addresses (its ?view=, else the
	// default view; "" none), for the scope check.
	View string
}

// StateOf returns the request's state, or an empty one.
func StateOf(r *http.Request) *State {
	if st, ok := r.Context().Value(stateKey{}).(*State); ok {
		return st
	}
	return &State{}
}

// ViewOf returns the view the request addresses, for the scope checks.
func ViewOf(r *http.Request) string { return StateOf(r).View }

// GrantOf returns the request's grant (nil: everything allowed).
func GrantOf(r *http.Request) *Grant {
	if id := StateOf(r).ID; id != nil {
		return id.Grant
	}
	return nil
}

// ScopedZone is the request's zone as the scope check normalised it
// (Allow), "" when it did not.
func ScopedZone(r *http.Request) string {
	if st, ok := r.Context().Value(stateKey{}).(*State); ok {
		return st.Zone
	}
	return ""
}

// Admitted returns r carrying id: its State, and the identity
// (WithIdentity).
func Admitted(r *http.Request, id *Identity) *http.Request {
	ctx := context.WithValue(r.Context(), stateKey{}, &State{ID: id})
	return r.WithContext(WithIdentity(ctx, id))
}

// RequestGuard is the request path's middleware of authentication and
// scopes: Authenticate, then Allow and AllowRecords, each answering the
// request itself (401, 429, 503, 403, 400) when it refuses it.
type RequestGuard struct {
	// Guard authenticates (mode, rate limits); its Log is the auth
	// logger, where refusals are logged.
	Guard *Guard
	// Refused counts a refusal by its reason (a Rejection's, or
	// "forbidden").
	Refused func(reason string)
	// WriteError writes an error answer in the shape of the request's
	// front end.
	WriteError func(w http.ResponseWriter, status int, format string, args ...any)
}

// Authenticate checks the bearer token with the configured mode. On
// failure it writes the 401 (or 429, 503) and returns false; on success
// it returns the request carrying the identity (Admitted), which is also
// put in the {http.auth.user.id} placeholder. Token values are never
// logged.
func (g *RequestGuard) Authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	id, rej := g.Guard.Check(r)
	if rej != nil {
		g.Refused(rej.Reason)
		switch rej.Status {
		case http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Bearer realm="zone_api"`)
		case http.StatusTooManyRequests:
			w.Header().Set("Retry-After", strconv.Itoa(rej.RetryAfter))
		}
		g.WriteError(w, rej.Status, "%s", rej.Message)
		return r, false
	}
	if repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer); ok {
		// Caddy's access log writes it as user_id: the log's form of
		// the identity (a JWT's sub is the client's text).
		repl.Set("http.auth.user.id", logsafe.Text(id.ID))
	}
	return Admitted(r, id), true
}

// Allow answers 403 and returns false unless the identity may do the
// action (on the zone, when one is given). The first zone checked is the
// request's zone (its audit line's, ScopedZone): a later check of another
// zone, such as the read of the zone an import copies, leaves it alone.
func (g *RequestGuard) Allow(w http.ResponseWriter, r *http.Request, a Action, zone string) bool {
	st := StateOf(r)
	if st.Zone == "" {
		st.Zone = zone
	}
	if st.ID == nil || a == "" {
		return true
	}
	if err := st.ID.Grant.CheckActionIn(st.ID.ID, a, zone, st.View); err != nil {
		return g.Forbid(w, r, err)
	}
	// Record name and type limits would mean nothing if the same token
	// could create the zone with any records, delete it, or change its
	// update policy: with such limits, the zones action covers only the
	// commands that leave records and policy alone.
	if a == ActionZones && st.ID.Grant.RestrictsRecords() && !recordNeutral(r) {
		return g.Forbid(w, r, &Denied{Message: st.ID.ID + " may not create, delete or reconfigure zones: its scope limits record names or types, which such changes would get round"})
	}
	// Server-wide operations see and touch every zone: an identity
	// limited to some zones may not run them.
	if a == ActionServer && !st.ID.Grant.AllowsServer() {
		limit := "some zones"
		if !st.ID.Grant.RestrictsZones() {
			limit = "some record names or types"
		}
		return g.Forbid(w, r, &Denied{Message: st.ID.ID + " is limited to " + limit + "; the catalog covers every zone, as server status and reconcile do"})
	}
	return true
}

// AllowRecords answers 403 and returns false unless the identity may
// change every record a record request (or the list of changes of
// another front end, []RecordChange with absolute names) names: the one
// record-level question, CheckRecordChanges, asked with the view the
// request addresses. The REST record routes ask it, and the PowerDNS
// API's PATCH and PUT with rrsets. Names that do not resolve in the zone
// are left for validation to refuse, unless the scope limits names or
// types (then 400 here).
func (g *RequestGuard) AllowRecords(w http.ResponseWriter, r *http.Request, zone string, req any) bool {
	st := StateOf(r)
	if st.Zone == "" {
		st.Zone = zone // as in Allow: the first zone checked
	}
	if st.ID == nil {
		return true
	}
	var recs []RecordChange
	switch q := req.(type) {
	case []RecordChange:
		recs = append(recs, q...)
	case *apitypes.Record:
		recs = append(recs, RecordChange{Name: q.Name, Type: q.Type})
	case *apitypes.RemoveRecord:
		recs = append(recs, RecordChange{Name: q.Name, Type: q.Type})
	case *apitypes.UpdateRecord:
		recs = append(recs, RecordChange{Name: q.Name, Type: q.Type})
	case *apitypes.BatchRequest:
		for i, c := range q.Changes {
			recs = append(recs, RecordChange{Field: fmt.Sprintf("changes[%d]", i), Name: c.Name, Type: c.Type})
		}
	default:
		return g.Forbid(w, r, &Denied{Message: st.ID.ID + " may not make this change: its scope limits record names or types"})
	}
	if !st.ID.Grant.RestrictsRecords() {
		recs = nil // the action and zone are the whole question
	}
	for i, c := range recs {
		fqdn, err := zonemodel.NormalizeRecordName(c.Name, zone)
		if err != nil {
			g.WriteError(w, http.StatusBadRequest, "%sinvalid record name %q: %v", fieldPrefix(c.Field), c.Name, err)
			return false
		}
		recs[i].Name = fqdn
	}
	if err := st.ID.Grant.CheckRecordChanges(st.ID.ID, zone, st.View, recs); err != nil {
		return g.Forbid(w, r, err)
	}
	return true
}

func fieldPrefix(f string) string {
	if f == "" {
		return ""
	}
	return f + ": "
}

// Forbid answers 403 with what was missing, logged and counted (Denied).
func (g *RequestGuard) Forbid(w http.ResponseWriter, r *http.Request, err error) bool {
	g.Denied(r, err)
	g.WriteError(w, http.StatusForbidden, "%s", err.Error())
	return false
}

// Denied logs and counts a 403, which the caller answers.
func (g *RequestGuard) Denied(r *http.Request, err error) {
	id := "anonymous"
	if st := StateOf(r); st.ID != nil {
		id = st.ID.ID
	}
	g.Guard.Log.Warn("request outside the identity's scope", zap.String("principal", logsafe.Text(id)), zap.String("method", r.Method),
		zap.String("uri", r.RequestURI), zap.String("reason", logReason(err)))
	g.Refused("forbidden")
}

// logReason is a 403's reason as its log line carries it: it names the
// identity, whose text the client may choose (a JWT's sub), so it is
// escaped and capped as logsafe does, with room for what was missing.
func logReason(err error) string { return logsafe.Limit(err.Error(), 4*logsafe.MaxLen) }

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
