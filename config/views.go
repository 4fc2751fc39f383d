package config

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ViewConfig is a view of named (named.conf's `view "<name>" { … }`,
// split horizon) that requests address with `?view=<name>`. named keeps
// every zone of a server with views in one of them, and the same zone
// name may be in several; a view is one zone identity space of its own
// here too: its zones are created in it (`rndc addzone <zone> IN <view>`),
// every control command names it, and its zone files, index and locks
// are kept apart in <zone_dir>/views/<name> (the default view's stay in
// zone_dir).
//
// named chooses the view of a DNS message by its match-clients (the
// message's TSIG key or source address) and match-destinations (the
// address it was sent to), not by anything the message names. So that
// the record endpoints' UPDATEs, queries and zone transfers reach the
// view's zones, give the view the TSIG key its match-clients names
// (UpdateKey; every message is then signed with it) or, for a view
// matched by destination, the address it listens on (DNSServer).
type ViewConfig struct {
	// Name is the view's name in named.conf: 1 to 64 letters, digits,
	// '_' and '-'.
	Name string `json:"name"`

	// UpdateKey is the view's TSIG key, the one its match-clients names
	// (`match-clients { key "<name>"; … };`): zones created in the view
	// accept dynamic updates from it (allow-update), and the record
	// endpoints sign their UPDATEs, queries and transfers with it.
	// Required with its secret unless DNSServer tells the view apart.
	UpdateKey *KeyConfig `json:"update_key,omitempty"`

	// DNSServer is the host:port where the view's DNS messages are sent,
	// for a view that named chooses by match-destinations. Default: the
	// handler's dns_server.
	DNSServer string `json:"dns_server,omitempty"`

	// Default makes this the view of requests that name none (bindcar's
	// clients, which know nothing of views): with it, `?view=` may be
	// left out. At most one view is the default. Its zones stay in
	// zone_dir, and the catalog zone, if configured, lives in it.
	Default bool `json:"default,omitempty"`
}

// unmarshalViewCaddyfile reads `view <name> { … }`:
//
//	view <name> {
//		update_key_file <path> [<key_name>]
//		update_key      <name> [<algorithm> <secret>]
//		dns_server      <host:port>
//		default
//	}
func unmarshalViewCaddyfile(d *caddyfile.Dispenser) (ViewConfig, error) {
	var v ViewConfig
	if !d.NextArg() {
		return v, d.ArgErr()
	}
	v.Name = d.Val()
	if d.NextArg() {
		return v, d.ArgErr()
	}
	if err := zonemodel.CheckViewName(v.Name); err != nil {
		return v, d.Errf("view: %v", err)
	}
	for n := d.Nesting(); d.NextBlock(n); {
		switch d.Val() {
		case "update_key_file", "update_key":
			if err := parseUpdateKey(d, &v.UpdateKey); err != nil {
				return v, err
			}
		case "dns_server":
			if !d.AllArgs(&v.DNSServer) {
				return v, d.ArgErr()
			}
		case "default":
			if d.NextArg() {
				return v, d.ArgErr()
			}
			v.Default = true
		default:
			return v, d.Errf("unrecognized view subdirective %q", d.Val())
		}
	}
	return v, nil
}
