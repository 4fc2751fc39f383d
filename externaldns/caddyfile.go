package externaldns

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("zone_api_external_dns", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("zone_api_external_dns", httpcaddyfile.Before, "respond")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var hd Handler
	err := hd.UnmarshalCaddyfile(h.Dispenser)
	return &hd, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens:
//
//	zone_api_external_dns [<matcher>] {
//		zones           <zone>...
//		dns_server      <host:port>
//		update_key_file <path> [<key_name>]
//		update_key      <name> <algorithm> <secret>
//		timeout         <duration>
//		serial_update_method increment|unixtime|date
//		zone_dir        <path>                 # record changes in zone_api's history there
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch opt := d.Val(); opt {
		case "zones":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Zones = append(h.Zones, args...)
		case "zone_dir":
			if !d.Args(&h.ZoneDir) || d.NextArg() {
				return d.ArgErr()
			}
		case "dns_server", "serial_update_method":
			var v string
			if !d.Args(&v) || d.NextArg() {
				return d.ArgErr()
			}
			if opt == "dns_server" {
				h.DNSServer = v
			} else {
				h.SerialUpdateMethod = v
			}
		case "timeout":
			var v string
			if !d.Args(&v) || d.NextArg() {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil {
				return d.Errf("timeout: %v", err)
			}
			h.Timeout = caddy.Duration(dur)
		case "update_key_file":
			args := d.RemainingArgs()
			if len(args) < 1 || len(args) > 2 {
				return d.ArgErr()
			}
			h.UpdateKey = &KeyConfig{File: args[0]}
			if len(args) == 2 {
				h.UpdateKey.Name = args[1]
			}
		case "update_key":
			args := d.RemainingArgs()
			if len(args) != 3 {
				return d.ArgErr()
			}
			h.UpdateKey = &KeyConfig{Name: args[0], Algorithm: args[1], Secret: args[2]}
		default:
			return d.Errf("unrecognized option %q", opt)
		}
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Handler)(nil)
