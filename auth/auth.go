package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// Namespace is the Caddy module namespace of the authentication modes.
const Namespace = "zone_api.auth"

// Authenticator is implemented by every authentication mode. Authenticate
// checks a bearer token (already checked to be present and well-formed)
// and returns who it belongs to. It must never log the token. A token
// that is not valid gives an *Error with status 401; a mode that cannot
// decide (its verifier is unreachable) gives an *Error with status 503.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (*Identity, error)
}

// Identity is an authenticated principal.
type Identity struct {
	// ID names the principal in logs and in the {http.auth.user.id}
	// placeholder: a token's name, a JWT subject, a service account. It
	// is never the token.
	ID string
	// Mode is the authentication mode that admitted the principal.
	Mode string
	// Grant is what the principal may do; nil means everything.
	Grant *Grant
	// Expires, if set, is when the credential stops being accepted (a
	// JWT's exp with the leeway): a request that outlives its check,
	// such as the event stream, ends then, and the client has to present
	// a valid credential again.
	Expires time.Time
}

// Error is an authentication failure with the HTTP status to answer it
// with (401, or 503 when the mode cannot reach what it checks against)
// and a message for the client. Reason is a short label for metrics and
// logs.
type Error struct {
	Status  int
	Reason  string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Unauthorized returns a 401 error.
func Unauthorized(reason, message string) *Error {
	return &Error{Status: http.StatusUnauthorized, Reason: reason, Message: message}
}

// Unavailable returns a 503 error: the mode could not check the token.
func Unavailable(reason, message string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Reason: reason, Message: message}
}

// The 401 messages of the service specification, exactly.
const (
	MsgMissingHeader = "Missing Authorization header"
	MsgBadFormat     = "Invalid Authorization header format. Expected: Bearer <token>"
	MsgEmptyToken    = "Empty token"
)

// BearerToken extracts the token of Authorization header values (the
// scheme in any case, RFC 9110 §11.1; RFC 6750 §2.1). It
// returns the token, or a short reason and the specification's 401
// message when the header is missing or not a well-formed bearer token.
func BearerToken(values []string) (token, reason, message string) {
	if len(values) == 0 || values[0] == "" {
		return "", "missing_header", MsgMissingHeader
	}
	if len(values) > 1 {
		return "", "invalid_format", MsgBadFormat
	}
	v := values[0]
	// The scheme is case-insensitive (RFC 9110 §11.1): "bearer" and
	// "BEARER" are Bearer; the token is kept as sent.
	const scheme = "Bearer"
	if len(v) < len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return "", "invalid_format", MsgBadFormat
	}
	if len(v) == len(scheme) {
		return "", "empty_token", MsgEmptyToken
	}
	if v[len(scheme)] != ' ' {
		return "", "invalid_format", MsgBadFormat
	}
	token = v[len(scheme)+1:]
	if strings.TrimSpace(token) == "" {
		return "", "empty_token", MsgEmptyToken
	}
	// RFC 6750 token68 characters only: a token with spaces or control
	// characters is not well-formed.
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0) {
			return "", "invalid_format", MsgBadFormat
		}
	}
	// b64token: '=' only as trailing padding, after at least one other
	// character ("=====" is not a token).
	if body := strings.TrimRight(token, "="); body == "" || strings.Contains(body, "=") {
		return "", "invalid_format", MsgBadFormat
	}
	return token, "", ""
}

// Fingerprint is a short, non-reversible name of a token (the first 12
// hex digits of its SHA-256), for logs where no better name exists.
func Fingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:6])
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity of a request, or nil when none was
// set (authentication disabled, or a public route).
func FromContext(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}
