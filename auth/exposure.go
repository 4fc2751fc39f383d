package auth

import (
	"fmt"
	"strings"

	"go.uber.org/zap"
)

// CheckExposure is the start-up guard of a weak mode (moved from
// module/auth.go's provisionAuth): authentication disabled, or basic
// mode, which accepts any well-formed bearer token, on a listener of
// listen (the Caddy server's) reachable from other hosts (Exposed) warns
// on log, or with requireAuth fails; disabled authentication with no such
// listener still warns.
func (g *Guard) CheckExposure(listen []string, requireAuth bool, log *zap.Logger) error {
	weak := ""
	switch {
	case g.Disabled:
		weak = "authentication is disabled (disable_auth or DISABLE_AUTH=true): every request is admitted without a token"
	case g.ModeName == "basic":
		weak = "auth mode basic accepts any well-formed bearer token"
	}
	if weak == "" {
		return nil
	}
	exposed := Exposed(listen)
	if len(exposed) == 0 {
		if g.Disabled {
			log.Warn(weak + "; use this only behind an authenticating gateway or for local development")
		}
		return nil
	}
	if requireAuth {
		return fmt.Errorf("require_auth: %s, and the server listens on %s, reachable from other hosts; configure a real mode (auth static|jwt|k8s_token_review) or bind to loopback", weak, strings.Join(exposed, ", "))
	}
	log.Warn(weak+", and the server listens on addresses reachable from other hosts: anyone who can reach them can manage every zone; configure a real mode (auth static|jwt|k8s_token_review), bind to loopback, or set require_auth to refuse this",
		zap.Strings("listen", exposed))
	return nil
}
