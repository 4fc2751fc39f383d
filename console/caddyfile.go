package console

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("zone_api_console", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("zone_api_console", httpcaddyfile.Before, "respond")
}

// parseCaddyfile reads the directive:
//
//	zone_api_console [<path>] {
//		path <path>   # where the console is served; default /console/
//		api  <path>   # the REST API on the same origin; default /api/v1
//	}
func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	c := new(Handler)
	if err := c.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	return c, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens.
func (c *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive's name
	if d.NextArg() {
		c.Path = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	for d.NextBlock(0) {
		var dst *string
		switch d.Val() {
		case "path":
			dst = &c.Path
		case "api":
			dst = &c.API
		default:
			return d.Errf("unknown option %q: want path or api", d.Val())
		}
		if !d.NextArg() {
			return d.ArgErr()
		}
		*dst = d.Val()
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
