package module

import (
	"net/http"
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
// (its control commands name it; "" names none), with the catalog when
// withCatalog is set (the handler's own backend, which is the default
// view's).
func (h *Handler) newService(store *zonestore.Store, c *rndc.Client, view string, records *dnsupdate.Updater, updateKey string, withCatalog bool) *zoneservice.Service {
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

// reconcileBody is the answer of POST /api/v1/server/reconcile.
type reconcileBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	*zoneservice.Report
}

// handleReconcile reconciles on demand: it settles pending intents,
// discards a torn index line, adopts zones named serves with their file
// that the index lost, moves aside files no zone uses, and reports indexed
// zones named does not serve. With views, it does so for every view, each
// item of the report naming its view.
func (a *restAPI) handleReconcile(w http.ResponseWriter, r *http.Request, _ params) {
	b, ok := a.backendOr500(w)
	if !ok {
		return
	}
	rep := &zoneservice.Report{Fixed: []zoneservice.Fix{}, Pending: []zoneservice.Fix{}, Problems: []zoneservice.Fix{}}
	backends := []*backend{b}
	for _, name := range a.views.names {
		if vb := b.forView(name); vb != nil && vb != b {
			backends = append(backends, vb)
		}
	}
	for _, vb := range backends {
		vrep, err := vb.svc.Reconcile(r.Context(), true)
		vb.svc.LogReconcile("reconcile", vrep, err)
		if err != nil {
			a.lifecycleFailed(w, "", err)
			return
		}
		for _, l := range []struct{ dst, src *[]zoneservice.Fix }{{&rep.Fixed, &vrep.Fixed}, {&rep.Pending, &vrep.Pending}, {&rep.Problems, &vrep.Problems}} {
			for _, f := range *l.src {
				f.View = vb.view
				*l.dst = append(*l.dst, f)
			}
		}
		rep.Checked += vrep.Checked
	}
	msg := "nothing to repair"
	if len(rep.Fixed) > 0 || len(rep.Pending) > 0 || len(rep.Problems) > 0 {
		msg = "reconciled: see fixed, pending and problems"
	}
	writeJSON(w, http.StatusOK, reconcileBody{Success: true, Message: msg, Report: rep})
}
