package auth

import (
	"context"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func init() {
	caddy.RegisterModule(Basic{})
}

// Basic is the service specification's default mode: any well-formed
// bearer token is accepted, with full access. It verifies nothing; use it
// only on loopback, behind an authenticating gateway, or for development.
// The identity is named after a fingerprint of the token (never the
// token itself), so logs can tell clients apart.
type Basic struct{}

// CaddyModule returns the Caddy module information.
func (Basic) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  Namespace + ".basic",
		New: func() caddy.Module { return new(Basic) },
	}
}

// Authenticate accepts every token.
func (Basic) Authenticate(_ context.Context, token string) (*Identity, error) {
	return &Identity{ID: "basic:" + Fingerprint(token), Mode: "basic"}, nil
}

// UnmarshalCaddyfile reads `auth basic`, which takes no options.
func (*Basic) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // mode name
	if d.NextArg() {
		return d.ArgErr()
	}
	if d.NextBlock(d.Nesting()) {
		return d.Errf("auth basic takes no options, got %q", d.Val())
	}
	return nil
}

// Interface guards
var (
	_ Authenticator         = Basic{}
	_ caddyfile.Unmarshaler = (*Basic)(nil)
)
