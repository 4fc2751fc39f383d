package module

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
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

// catalogSettings is the catalog option, checked and expanded; the zero
// value means no catalog.
type catalogSettings struct {
	zone       string       // the catalog's normalised name
	group      string       // the group property of every member
	notify     []string     // also_notify, expanded
	notifyConf []rndc.Value // the same as catalog list elements
	xfr        []rndc.Value // allow_transfer, as catalog list elements
}

// settings checks the catalog option (nil: no catalog) with the update
// key it needs; it touches neither BIND nor the disk.
func (c *CatalogConfig) settings(updateKey *KeyConfig) (catalogSettings, error) {
	var cs catalogSettings
	if c == nil {
		return cs, nil
	}
	repl := caddy.NewReplacer()
	zone := repl.ReplaceKnown(c.Zone, "")
	if zone == "" && strings.Contains(c.Zone, "{") {
		return cs, nil // a placeholder that expands to nothing: no catalog
	}
	name, err := zonemodel.NormalizeZoneName(zone)
	if err != nil {
		return cs, fmt.Errorf("catalog zone: %v", err)
	}
	if strings.ContainsFunc(c.Group, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(c.Group) > 255 {
		return cs, fmt.Errorf("catalog group: at most 255 characters, no control characters")
	}
	for _, s := range c.AlsoNotify {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, err := zoneservice.ServerElement(s)
		if err != nil {
			return cs, fmt.Errorf("catalog also_notify: %v", err)
		}
		cs.notify, cs.notifyConf = append(cs.notify, s), append(cs.notifyConf, e)
	}
	for _, s := range c.AllowTransfer {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, isKey, err := zoneservice.ACLElement(s)
		if err != nil || isKey {
			return cs, fmt.Errorf("catalog allow_transfer: %q is not an address or network", s)
		}
		cs.xfr = append(cs.xfr, e)
	}
	if updateKey == nil || (updateKey.File == "" && updateKey.Secret == "") {
		return cs, fmt.Errorf("catalog needs update_key (or update_key_file) with its secret: the catalog is changed by signed dynamic updates")
	}
	cs.zone, cs.group = name, c.Group
	return cs, nil
}

// newCatalog returns the catalog of a backend's service, nil when none
// is configured.
func (cs catalogSettings) newCatalog(store *zonestore.Store, rc catalog.Control, records *dnsupdate.Updater, updateKey string) *catalog.Catalog {
	if cs.zone == "" {
		return nil
	}
	return &catalog.Catalog{
		Zone: cs.zone, Group: cs.group, Dir: store.Dir(), UpdateKey: updateKey,
		AlsoNotify: cs.notifyConf, AllowTransfer: cs.xfr,
		DNS: records.Client(), Control: rc,
		IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists,
	}
}

// unmarshalCatalog reads the catalog subdirective:
//
//	catalog <zone> {
//		group          <name>
//		also_notify    <ip[:port]>...
//		allow_transfer <ip[/len]>...
//	}
func (c *CatalogConfig) unmarshalCaddyfile(d *caddyfile.Dispenser) error {
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
