package config

import (
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// CatalogConfig names a catalog zone (RFC 9432, version 2) that the
// module creates on first use and keeps in step with the zones created
// through the API: each becomes a member when it is created and leaves
// when it is deleted, in the same request, by an RFC 2136 update signed
// with the update key (which therefore needs its secret). Secondaries
// configured as catalog consumers of it then serve every zone of the API
// without any change to their own configuration.
type CatalogConfig struct {
	// Zone is the catalog zone's name, e.g. catalog.zoneapi.invalid. A
	// placeholder that expands to nothing (an unset {env.X}) means no
	// catalog.
	Zone string `json:"zone,omitempty"`
	// Group, if set, is the group property (RFC 9432 section 4.4.2) of
	// every member.
	Group string `json:"group,omitempty"`
	// AlsoNotify lists the secondaries the catalog zone sends NOTIFY to
	// ("ip", "ip:port" or "[v6]:port"), so they learn of new members at
	// once; named.conf's also-notify works as well.
	AlsoNotify []string `json:"also_notify,omitempty"`
	// AllowTransfer lists who may transfer the catalog ("ip" or
	// "ip/len"); empty leaves named's default.
	AllowTransfer []string `json:"allow_transfer,omitempty"`
}

// Settings checks the catalog option (nil: no catalog) with the update
// key it needs, placeholders expanded (zoneservice.NewCatalogSettings);
// it touches neither BIND nor the disk.
func (c *CatalogConfig) Settings(updateKey *KeyConfig) (zoneservice.CatalogSettings, error) {
	if c == nil {
		return zoneservice.CatalogSettings{}, nil
	}
	repl := caddy.NewReplacer()
	zone := repl.ReplaceKnown(c.Zone, "")
	if zone == "" && strings.Contains(c.Zone, "{") {
		return zoneservice.CatalogSettings{}, nil // a placeholder that expands to nothing: no catalog
	}
	expand := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = repl.ReplaceKnown(s, "")
		}
		return out
	}
	secret := updateKey != nil && (updateKey.File != "" || updateKey.Secret != "")
	return zoneservice.NewCatalogSettings(zone, c.Group, expand(c.AlsoNotify), expand(c.AllowTransfer), secret)
}

// UnmarshalCaddyfile reads the catalog subdirective:
//
//	catalog <zone> {
//		group          <name>
//		also_notify    <ip[:port]>...
//		allow_transfer <ip[/len]>...
//	}
func (c *CatalogConfig) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	c.Zone = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for n := d.Nesting(); d.NextBlock(n); {
		switch d.Val() {
		case "group":
			if !d.AllArgs(&c.Group) {
				return d.ArgErr()
			}
		case "also_notify":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			c.AlsoNotify = append(c.AlsoNotify, args...)
		case "allow_transfer":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			c.AllowTransfer = append(c.AllowTransfer, args...)
		default:
			return d.Errf("unrecognized catalog subdirective %q", d.Val())
		}
	}
	return nil
}
