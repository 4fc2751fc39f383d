package auth

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
)

// Guard runs the authentication steps of one request: the failed-auth
// limit of the client's address, the bearer header, the mode, and the
// identity's rate limit. It never logs a token.
type Guard struct {
	// Mode checks tokens.
	Mode Authenticator
	// ModeName names Mode in logs.
	ModeName string
	// Disabled admits every request as the identity "anonymous".
	Disabled bool
	// PerIdentity, when set, limits each identity's requests (each
	// client address's when Disabled).
	PerIdentity *RateLimit
	// FailedAuth, when set, limits failed authentications per client IP
	// address; past it even valid tokens from that address get 429 until
	// the bucket refills.
	FailedAuth *RateLimit
	// LimitName names the buckets of PerIdentity and FailedAuth in
	// Limits: Guards with the same name share a subject's buckets, each
	// request counted under its own Guard's limit, and a config reload
	// that changes a limit keeps what each subject spent (tokens clipped
	// to the new burst); Guards with different names (the module's
	// handlers on different zone directories) keep separate buckets.
	LimitName string
	// Log is the auth logger.
	Log *zap.Logger
	// Limits holds the buckets of PerIdentity and FailedAuth and the
	// expensive reads in flight: the process's (AcquireLimits), shared by
	// every Guard and kept across config reloads. Nil: the Guard makes
	// limits of its own at first use.
	Limits *Limits

	state guardState
}

// Rejection is a refused request: status, the reason phrase for the
// error body, the message, a short reason for metrics, and for 429 the
// Retry-After seconds.
type Rejection struct {
	Status     int
	Message    string
	Reason     string
	RetryAfter int
}

// anonymous is the identity of requests when authentication is disabled.
var anonymous = &Identity{ID: "anonymous", Mode: "disabled"}

// Check authenticates r. It returns the identity, or the rejection to
// answer.
func (g *Guard) Check(r *http.Request) (*Identity, *Rejection) {
	ip := failedAuthSubject(ClientIP(r))
	if g.Disabled {
		// Without identities, the per-identity limit counts per address.
		if g.PerIdentity != nil {
			if d := g.limits().take(g.PerIdentity, "identity", g.LimitName, "anonymous@"+ip); d > 0 {
				return nil, &Rejection{Status: http.StatusTooManyRequests, Reason: "rate_limit", RetryAfter: retryAfter(d),
					Message: fmt.Sprintf("rate limit of %s exceeded; retry after %d s", ip, retryAfter(d))}
			}
		}
		return anonymous, nil
	}
	if g.FailedAuth != nil {
		if d := g.limits().blocked(g.FailedAuth, "failed_auth", g.LimitName, ip); d > 0 {
			g.Log.Warn("request refused: too many failed authentications from this address", zap.String("client_ip", ip), zap.String("method", r.Method), zap.String("uri", r.RequestURI))
			return nil, &Rejection{Status: http.StatusTooManyRequests, Reason: "failed_auth_limit", RetryAfter: retryAfter(d),
				Message: fmt.Sprintf("too many failed authentication attempts from %s; retry after %d s", ip, retryAfter(d))}
		}
	}
	token, reason, msg := BearerToken(r.Header.Values("Authorization"))
	if msg != "" {
		return nil, g.failed(r, ip, reason, msg)
	}
	id, err := g.Mode.Authenticate(r.Context(), token)
	if err != nil {
		var ae *Error
		if !errors.As(err, &ae) {
			ae = Unavailable("mode_error", "authentication is unavailable: "+err.Error())
		}
		// A mode's message may carry text from outside; the token goes
		// no further than here whatever the mode did.
		ae = &Error{Status: ae.Status, Reason: ae.Reason, Message: Redact(ae.Message, token)}
		if ae.Status == http.StatusUnauthorized {
			return nil, g.failed(r, ip, ae.Reason, ae.Message)
		}
		g.Log.Error("authentication unavailable", zap.String("mode", g.ModeName), zap.String("reason", ae.Reason), zap.String("error", ae.Message))
		return nil, &Rejection{Status: ae.Status, Reason: ae.Reason, Message: ae.Message}
	}
	if g.PerIdentity != nil {
		if d := g.limits().take(g.PerIdentity, "identity", g.LimitName, id.ID); d > 0 {
			g.Log.Warn("request refused: rate limit", zap.String("principal", logsafe.Text(id.ID)), zap.String("method", r.Method), zap.String("uri", r.RequestURI))
			return nil, &Rejection{Status: http.StatusTooManyRequests, Reason: "rate_limit", RetryAfter: retryAfter(d),
				Message: fmt.Sprintf("rate limit of %s exceeded; retry after %d s", id.ID, retryAfter(d))}
		}
	}
	if ce := g.Log.Check(zap.DebugLevel, "token accepted"); ce != nil {
		ce.Write(zap.String("mode", g.ModeName), zap.String("principal", logsafe.Text(id.ID)))
	}
	return id, nil
}

// failed counts a failed authentication against the client's address
// and returns the 401.
func (g *Guard) failed(r *http.Request, ip, reason, msg string) *Rejection {
	if g.FailedAuth != nil {
		g.limits().take(g.FailedAuth, "failed_auth", g.LimitName, ip)
	}
	g.Log.Warn("authentication failed", zap.String("mode", g.ModeName), zap.String("reason", reason), zap.String("client_ip", ip), zap.String("method", r.Method), zap.String("uri", r.RequestURI))
	return &Rejection{Status: http.StatusUnauthorized, Reason: reason, Message: msg}
}

// failedAuthSubject is what failed authentications count against: the
// client's address, or for an IPv6 client its /64 (one site's subnet,
// which a client can move around in freely).
func failedAuthSubject(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() || a.Is4In6() {
		return ip
	}
	p, err := a.Prefix(64)
	if err != nil {
		return ip
	}
	return p.String()
}

// ClientIP is the request's client address: Caddy's client_ip variable
// (which honours trusted_proxies), else the connection's remote host.
func ClientIP(r *http.Request) string {
	if v, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && v != "" {
		return v
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
