package config

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// LoadAuth loads the authentication mode, the zone_api.auth module AuthRaw
// names (basic unless configured), and checks the rate limits; it
// returns the mode's name and its Authenticator.
func (o *Options) LoadAuth(ctx caddy.Context) (string, auth.Authenticator, error) {
	mode := "basic"
	var authn auth.Authenticator = auth.Basic{}
	if o.AuthRaw != nil {
		var sel struct {
			Mode string `json:"mode"`
		}
		if err := json.Unmarshal(o.AuthRaw, &sel); err != nil {
			return "", nil, fmt.Errorf("auth: %v", err)
		}
		if err := auth.CheckMode(sel.Mode); err != nil {
			return "", nil, err
		}
		mod, err := ctx.LoadModule(o, "AuthRaw")
		if err != nil {
			return "", nil, fmt.Errorf("auth: %v", err)
		}
		a, ok := mod.(auth.Authenticator)
		if !ok {
			return "", nil, fmt.Errorf("auth: module %s does not authenticate tokens", sel.Mode)
		}
		mode, authn = sel.Mode, a
	}
	for what, l := range map[string]*auth.RateLimit{"rate_limit": o.RateLimit, "failed_auth_limit": o.FailedAuthLimit} {
		if l != nil {
			if err := l.Validate(); err != nil {
				return "", nil, fmt.Errorf("%s: %v", what, err)
			}
		}
	}
	return mode, authn, nil
}
