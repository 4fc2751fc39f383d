package config

import (
	"fmt"
	"net"
	"slices"

	"github.com/caddyserver/caddy/v2"
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

// Views is the views option, checked (the zero value: no views).
type Views struct {
	// Names are every configured view's name, in configuration order.
	Names []string
	// Default is the default view ("": none): requests that name no
	// view address it, through the handler's own backend.
	Default string
	// Other are the views other than the default, by name.
	Other map[string]*View
}

// View is one non-default view, checked.
type View struct {
	// Name is the view's name.
	Name string
	// UpdateKey is the view's TSIG key (nil: none).
	UpdateKey *KeyConfig
	// DNSServer is where the view's DNS messages are sent: its
	// dns_server, else the handler's.
	DNSServer string
}

// Configured reports whether any view is configured.
func (t *Views) Configured() bool { return len(t.Names) > 0 }

// newViews checks the views option. A default view's key and DNS
// server replace the handler's own (*updateKey, *dnsServer): the
// handler's backend is then the default view's. It runs in Provision,
// after the update key and dns_server are set and before the shared
// references are taken; catalogZone is the catalog option's zone.
func newViews(views []ViewConfig, updateKey **KeyConfig, dnsServer *string, catalogZone string) (Views, error) {
	repl := caddy.NewReplacer()
	t := Views{Other: map[string]*View{}}
	handlerServer := *dnsServer
	for i, v := range views {
		if err := zonemodel.CheckViewName(v.Name); err != nil {
			return t, fmt.Errorf("views[%d]: %v", i, err)
		}
		if slices.Contains(t.Names, v.Name) {
			return t, fmt.Errorf("view %s is configured twice", v.Name)
		}
		t.Names = append(t.Names, v.Name)
		server := repl.ReplaceKnown(v.DNSServer, "")
		if v.Default {
			if t.Default != "" {
				return t, fmt.Errorf("views %s and %s are both the default; at most one may be", t.Default, v.Name)
			}
			t.Default = v.Name
			if v.UpdateKey != nil {
				k := *v.UpdateKey
				*updateKey = &k
			}
			if server != "" {
				*dnsServer = server
			}
			continue
		}
		if server == "" {
			server = handlerServer
		}
		if (v.UpdateKey == nil || !v.UpdateKey.HasSecret()) && server == handlerServer {
			return t, fmt.Errorf("view %s: give it the TSIG key its match-clients names, with its secret (update_key_file <path> or update_key <name> <algorithm> <secret>), "+
				"or the dns_server it is matched by: otherwise the record endpoints' messages would reach whichever view named chooses for them", v.Name)
		}
		vs := &View{Name: v.Name, DNSServer: server}
		if v.UpdateKey != nil {
			k := *v.UpdateKey
			vs.UpdateKey = &k
		}
		t.Other[v.Name] = vs
	}
	if t.Configured() && catalogZone != "" && t.Default == "" {
		return t, fmt.Errorf("catalog: with views, the catalog zone lives in the default view; mark one view default")
	}
	return t, nil
}

// validate checks the views' DNS servers and keys without touching the
// disk.
func (t *Views) validate() error {
	for _, name := range t.Names {
		vs, ok := t.Other[name]
		if !ok {
			continue
		}
		if _, _, err := net.SplitHostPort(vs.DNSServer); err != nil {
			return fmt.Errorf("view %s: dns_server %q: %v", name, vs.DNSServer, err)
		}
		if vs.UpdateKey != nil {
			if err := vs.UpdateKey.Validate("view "+name+" update key", false); err != nil {
				return err
			}
		}
	}
	return nil
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
