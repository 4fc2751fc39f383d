package module

import (
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// commandExpiry is added to the rndc timeout to give each control command's
// expiry: named refuses a command it reads later than that after it was
// sent, so a command that timed out cannot take effect after it. named's
// clock must agree with this host's to well within it.
const commandExpiry = 10 * time.Second

// newService builds the zone service of a backend: of the zones of view
// in the directory dir (store is its store)
// (its control commands name it; "" names none), with the catalog when
// withCatalog is set (the handler's own backend, which is the default
// view's).
func (h *Handler) newService(dir *zoneservice.Directory, store *zonestore.Store, c *rndc.Client, view string, records *dnsupdate.Updater, updateKey string, withCatalog bool) *zoneservice.Service {
	var keyDirs []string
	if d := caddy.NewReplacer().ReplaceKnown(h.KeyDirectory, ""); d != "" {
		keyDirs = []string{d}
	}
	// named-checkzone checks imports unless it is off (the service's own
	// checks then).
	var checker *zonecheck.Checker
	if h.NamedCheckzone != "off" {
		checker = &zonecheck.Checker{Path: caddy.NewReplacer().ReplaceKnown(h.NamedCheckzone, "")}
	}
	// A ViewClient of view "" names no view: exactly the client's own
	// commands.
	control := c.InView(view)
	svc := &zoneservice.Service{
		Store:        store,
		Directory:    dir,
		Control:      control,
		View:         view,
		Updater:      records,
		SerialMethod: h.serialMethod,
		UpdateKey:    updateKey,
		Checker:      checker,
		Timeout:      h.rndcTimeout,
		SendWithin:   h.rndcTimeout,
		Expiry:       c.Expiry,
		KeyDirs:      keyDirs,
		Logger:       h.logger,
		// The restart watch's status every 2 s on a connection of its
		// own (none kept idle), never on one a request could use.
		WatchStatus: (&rndc.Client{Addr: c.Addr, Key: c.Key, Timeout: c.Timeout, MaxIdle: -1, Observe: c.Observe}).Status,
	}
	if withCatalog {
		svc.Catalog, svc.CatalogNotify = h.catalog.newCatalog(store, control, records, updateKey), h.catalog.notify
	}
	return svc
}
