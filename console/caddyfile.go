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
//		oidc_issuer    <url>     # sign-in with this OpenID Connect provider
//		oidc_client_id <id>      # the console's (public) client id there
//		oidc_scopes    <scope…>  # default openid
//		oidc_token     id_token|access_token   # sent to the API; default id_token
//		oidc_name      <name>    # on the button; default the issuer's host
//		oidc_ca_file   <pem>     # CAs of the provider's certificate; default the system's
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
		oidc := func() *OIDC {
			if c.OIDC == nil {
				c.OIDC = new(OIDC)
			}
			return c.OIDC
		}
		switch d.Val() {
		case "path":
			dst = &c.Path
		case "api":
			dst = &c.API
		case "oidc_issuer":
			dst = &oidc().Issuer
		case "oidc_client_id":
			dst = &oidc().ClientID
		case "oidc_token":
			dst = &oidc().Token
		case "oidc_name":
			dst = &oidc().Name
		case "oidc_ca_file":
			dst = &oidc().CAFile
		case "oidc_scopes":
			o := oidc()
			o.Scopes = append(o.Scopes, d.RemainingArgs()...)
			if len(o.Scopes) == 0 {
				return d.ArgErr()
			}
			continue
		default:
			return d.Errf("unknown option %q: want path, api, oidc_issuer, oidc_client_id, oidc_scopes, oidc_token, oidc_name or oidc_ca_file", d.Val())
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
