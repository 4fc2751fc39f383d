package module

import (
	"net/http"
	"strings"

	"go.uber.org/zap"
)

// The 401 messages of the service specification, exactly.
const (
	msgMissingHeader = "Missing Authorization header"
	msgBadFormat     = "Invalid Authorization header format. Expected: Bearer <token>"
	msgEmptyToken    = "Empty token"
)

// authenticate checks the bearer token (basic mode: any well-formed token
// is accepted). On failure it writes the 401 and returns false. Token
// values are never logged.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) bool {
	if h.authDisabled {
		return true
	}
	reason, msg := checkBearer(r.Header.Values("Authorization"))
	if msg == "" {
		h.authLog.Debug("token accepted", zap.String("mode", "basic"))
		return true
	}
	metrics.authFailures.WithLabelValues(reason).Inc()
	h.authLog.Warn("authentication failed", zap.String("reason", reason), zap.String("method", r.Method), zap.String("uri", r.RequestURI))
	w.Header().Set("WWW-Authenticate", `Bearer realm="zone_api"`)
	writeJSON(w, http.StatusUnauthorized, errorBody{Error: "Unauthorized", Message: msg})
	return false
}

// checkBearer validates Authorization header values. It returns a short
// reason and the 401 message, or two empty strings when the header holds a
// well-formed bearer token.
func checkBearer(values []string) (reason, message string) {
	if len(values) == 0 || values[0] == "" {
		return "missing_header", msgMissingHeader
	}
	if len(values) > 1 {
		return "invalid_format", msgBadFormat
	}
	v := values[0]
	const prefix = "Bearer "
	if !strings.HasPrefix(v, prefix) {
		if v == "Bearer" {
			return "empty_token", msgEmptyToken
		}
		return "invalid_format", msgBadFormat
	}
	token := v[len(prefix):]
	if strings.TrimSpace(token) == "" {
		return "empty_token", msgEmptyToken
	}
	// RFC 6750 token68 characters only: a token with spaces or control
	// characters is not well-formed.
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0) {
			return "invalid_format", msgBadFormat
		}
	}
	return "", ""
}
