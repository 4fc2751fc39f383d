package module

import (
	"fmt"
	"time"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// viewTable is the views option, checked (config.Views; the zero value:
// no views), with the shared state of each view but the default.
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

// viewSettings is one non-default view, checked (config.View), with its
// references to the shared store and updater (taken in Provision, given
// back in Cleanup).
type viewSettings struct {
	config.View
	sharedRefs
}

// rest is the views as package rest reads them (rest.Views: Named,
// Resolve).
func (t *viewTable) rest() rest.Views { return rest.Views{Names: t.names, Default: t.def} }

// newViewTable is the views option, checked (config.Views), ready for
// its non-default views' references to the shared state.
func newViewTable(v config.Views) viewTable {
	t := viewTable{names: v.Names, def: v.Default, other: map[string]*viewSettings{}}
	for name, cv := range v.Other {
		t.other[name] = &viewSettings{View: *cv}
	}
	return t
}

// acquire takes each non-default view's references to its store
// (<zone_dir>/views/<name>) and updater; release gives them back.
func (t *viewTable) acquire(zoneDir string, timeout time.Duration) error {
	for _, vs := range t.other {
		if err := vs.acquireView(zoneDir, vs.Name, vs.DNSServer, vs.UpdateKey, timeout); err != nil {
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
	p := zoneservice.ViewParts{Name: vs.Name}
	var err error
	var tsigKey *rndc.Key
	if vs.UpdateKey != nil {
		p.UpdateKey, tsigKey, err = vs.UpdateKey.ResolveUpdate()
		if err != nil {
			return p, fmt.Errorf("view %s: loading update key: %w", vs.Name, err)
		}
	}
	if vs.store == nil || vs.updater == nil { // a handler built without Provision (unit tests)
		dir, parent, view := zonestore.ViewDir(zoneDir, vs.Name), zoneDir, vs.Name
		vs.store = zoneservice.NewDirectory(dir, func() (*zonestore.Store, error) { return zonestore.OpenView(parent, view) })
		vs.updater = sharedupdater.New(reqlog.DNSHooks())
	}
	if p.Updater, err = vs.updater.GetForView(vs.DNSServer, tsigKey, timeout); err != nil {
		return p, fmt.Errorf("view %s: %w", vs.Name, err)
	}
	if p.Store, err = vs.store.Store(); err != nil {
		return p, fmt.Errorf("view %s: opening its zone directory: %w", vs.Name, err)
	}
	p.Directory = vs.store
	return p, nil
}
