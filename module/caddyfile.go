package module

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("zone_api", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("zone_api", httpcaddyfile.Before, "respond")
}

// parseCaddyfile sets up the handler from Caddyfile tokens: the zone_api
// directive's syntax is config.Options.UnmarshalCaddyfile's, which
// Handler's UnmarshalCaddyfile is.
func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var m Handler
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return &m, err
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Handler)(nil)
