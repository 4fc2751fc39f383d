package module

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// viewTable is the views option, checked (the zero value: no views).
type viewTable struct {
	// names are every configured view's name, in configuration order.
	names []string
	// def is the default view ("" none): requests that name no view
	// address it, through the handler's own backend.
	def string
	// other are the views other than the default, each with a backend of
	// its own, by name.
	other map[string]*viewSettings
}

// viewSettings is one non-default view, checked, with its references to
// the shared store and updater (taken in Provision, given back in
// Cleanup).
type viewSettings struct {
	name          string
	updateKeyConf *config.KeyConfig
	dnsServer     string

	sharedRefs
}

// configured reports whether any view is configured.
func (t *viewTable) configured() bool { return len(t.names) > 0 }

// rest is the views as package rest reads them (rest.Views: Named,
// Resolve).
func (t *viewTable) rest() rest.Views { return rest.Views{Names: t.names, Default: t.def} }

// newViewTable checks the views option. A default view's key and DNS
// server replace the handler's own (*updateKey, *dnsServer): the
// handler's backend is then the default view's. It runs in Provision,
// after the update key and dns_server are set and before the shared
// references are taken; catalogZone is the catalog option's zone.
func newViewTable(views []config.ViewConfig, updateKey **config.KeyConfig, dnsServer *string, catalogZone string) (viewTable, error) {
	repl := caddy.NewReplacer()
	t := viewTable{other: map[string]*viewSettings{}}
	handlerServer := *dnsServer
	for i, v := range views {
		if err := zonemodel.CheckViewName(v.Name); err != nil {
			return t, fmt.Errorf("views[%d]: %v", i, err)
		}
		if slices.Contains(t.names, v.Name) {
			return t, fmt.Errorf("view %s is configured twice", v.Name)
		}
		t.names = append(t.names, v.Name)
		server := repl.ReplaceKnown(v.DNSServer, "")
		if v.Default {
			if t.def != "" {
				return t, fmt.Errorf("views %s and %s are both the default; at most one may be", t.def, v.Name)
			}
			t.def = v.Name
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
		vs := &viewSettings{name: v.Name, dnsServer: server}
		if v.UpdateKey != nil {
			k := *v.UpdateKey
			vs.updateKeyConf = &k
		}
		t.other[v.Name] = vs
	}
	if t.configured() && catalogZone != "" && t.def == "" {
		return t, fmt.Errorf("catalog: with views, the catalog zone lives in the default view; mark one view default")
	}
	return t, nil
}

// validate checks the views' DNS servers and keys without touching the
// disk.
func (t *viewTable) validate() error {
	for _, name := range t.names {
		vs, ok := t.other[name]
		if !ok {
			continue
		}
		if _, _, err := net.SplitHostPort(vs.dnsServer); err != nil {
			return fmt.Errorf("view %s: dns_server %q: %v", name, vs.dnsServer, err)
		}
		if vs.updateKeyConf != nil {
			if err := vs.updateKeyConf.Validate("view "+name+" update key", false); err != nil {
				return err
			}
		}
	}
	return nil
}

// acquire takes each non-default view's references to its store
// (<zone_dir>/views/<name>) and updater; release gives them back.
func (t *viewTable) acquire(zoneDir string, timeout time.Duration) error {
	for _, vs := range t.other {
		if err := vs.acquireView(zoneDir, vs.name, vs.dnsServer, vs.updateKeyConf, timeout); err != nil {
			return err
		}
	}
	return nil
}

func (t *viewTable) release() {
	for _, vs := range t.other {
		vs.sharedRefs.release()
	}
}

// parts resolves the view's own parts of the zone server, as getBackend
// resolves the root's: its store, an updater signing with the view's key,
// the name of that key.
func (vs *viewSettings) parts(zoneDir string, timeout time.Duration) (zoneservice.ViewParts, error) {
	p := zoneservice.ViewParts{Name: vs.name}
	var err error
	var tsigKey *rndc.Key
	if vs.updateKeyConf != nil {
		p.UpdateKey, tsigKey, err = vs.updateKeyConf.ResolveUpdate()
		if err != nil {
			return p, fmt.Errorf("view %s: loading update key: %w", vs.name, err)
		}
	}
	if vs.store == nil || vs.updater == nil { // a handler built without Provision (unit tests)
		dir, parent, view := zonestore.ViewDir(zoneDir, vs.name), zoneDir, vs.name
		vs.store = zoneservice.NewDirectory(dir, func() (*zonestore.Store, error) { return zonestore.OpenView(parent, view) })
		vs.updater = sharedupdater.New(dnsupdate.Hooks{Message: traceDNS, Update: countDNSUpdate})
	}
	if p.Updater, err = vs.updater.GetForView(vs.dnsServer, tsigKey, timeout); err != nil {
		return p, fmt.Errorf("view %s: %w", vs.name, err)
	}
	if p.Store, err = vs.store.Store(); err != nil {
		return p, fmt.Errorf("view %s: opening its zone directory: %w", vs.name, err)
	}
	p.Directory = vs.store
	return p, nil
}

// takesView reports whether a route addresses zones, so that ?view=
// applies to it: the REST zone and record routes (not the PowerDNS API's,
// which knows no views, nor the server-wide ones).
func takesView(rt *route) bool {
	return rt != nil && !rt.pdns && strings.HasPrefix(rt.template, apiPrefix+"/zones")
}
