package module

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/catalog"
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

// catalogTarget is a server of the catalog's also_notify, as configured
// and in BIND's notation.
type catalogTarget struct{ api, conf string }

// catalogState is a handler's catalog: built with the backend, and
// reconciled once at the first request.
type catalogState struct {
	startup    sync.Mutex // held by the first request's reconcile
	mu         sync.Mutex
	lastTry    time.Time // the last start-up reconcile attempt
	cat        *catalog.Catalog
	reconciled bool
}

// provisionCatalog checks the catalog option; it touches neither BIND nor
// the disk.
func (h *Handler) provisionCatalog() error {
	if h.Catalog == nil {
		return nil
	}
	c := h.Catalog
	repl := caddy.NewReplacer()
	zone := repl.ReplaceKnown(c.Zone, "")
	if zone == "" && strings.Contains(c.Zone, "{") {
		return nil // a placeholder that expands to nothing: no catalog
	}
	name, err := zonemodel.NormalizeZoneName(zone)
	if err != nil {
		return fmt.Errorf("catalog zone: %v", err)
	}
	if strings.ContainsFunc(c.Group, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(c.Group) > 255 {
		return fmt.Errorf("catalog group: at most 255 characters, no control characters")
	}
	h.catalogNotify, h.catalogXfr = nil, nil
	for _, s := range c.AlsoNotify {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, err := confServer(s)
		if err != nil {
			return fmt.Errorf("catalog also_notify: %v", err)
		}
		h.catalogNotify = append(h.catalogNotify, catalogTarget{api: s, conf: e})
	}
	for _, s := range c.AllowTransfer {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, isKey, err := confACL(s)
		if err != nil || isKey {
			return fmt.Errorf("catalog allow_transfer: %q is not an address or network", s)
		}
		h.catalogXfr = append(h.catalogXfr, e)
	}
	if h.UpdateKey == nil || (h.UpdateKey.File == "" && h.UpdateKey.Secret == "") {
		return fmt.Errorf("catalog needs update_key (or update_key_file) with its secret: the catalog is changed by signed dynamic updates")
	}
	h.catalogZone = name
	h.catalog = new(catalogState)
	return nil
}

// getCatalog returns the handler's catalog, nil when none is configured.
func (h *Handler) getCatalog(ctx context.Context, b *backend) *catalog.Catalog {
	if h.catalog == nil {
		return nil
	}
	cs := h.catalog
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.cat == nil {
		var notify []string
		for _, t := range h.catalogNotify {
			notify = append(notify, t.conf)
		}
		cs.cat = &catalog.Catalog{
			Zone: h.catalogZone, Group: h.Catalog.Group, Dir: b.store.Dir(), UpdateKey: b.updateKey,
			AlsoNotify: notify, AllowTransfer: h.catalogXfr,
			DNS: b.records.Client(), Control: b.rndc,
			IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists,
		}
	}
	return cs.cat
}

// catalogFirstRequest reconciles the catalog with the zone index at the
// first request after start (and at later ones until that succeeded). It
// runs before the request's handler takes any zone lock.
func (h *Handler) catalogFirstRequest(ctx context.Context) {
	if h.catalog == nil {
		return
	}
	cs := h.catalog
	cs.mu.Lock()
	done := cs.reconciled
	cs.mu.Unlock()
	if done {
		return
	}
	b, err := h.getBackend()
	if err != nil {
		return // the handler answers it
	}
	// The lifecycle's own start-up reconcile first: it settles creates
	// and deletes a crash left half done (running the catalog step of
	// those it completes).
	h.startupReconcile(ctx, b)
	cat := h.getCatalog(ctx, b)
	cs.startup.Lock() // one reconcile at a time; later requests wait for it
	defer cs.startup.Unlock()
	cs.mu.Lock()
	done = cs.reconciled
	// After a failure, try again at most every reconcileRetry, so that
	// requests do not each wait for a named that does not answer.
	recent := !cs.lastTry.IsZero() && time.Since(cs.lastTry) < reconcileRetry
	if !done && !recent {
		cs.lastTry = time.Now()
	}
	cs.mu.Unlock()
	if done || recent {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*h.rndcTimeout)
	defer cancel()
	rep, err := h.reconcileCatalog(ctx, b, cat, true)
	if err != nil {
		h.logger.Warn("reconciling the catalog zone at the first request failed; the next request tries again", zap.String("catalog", h.catalogZone), zap.Error(err))
		return
	}
	cs.mu.Lock()
	cs.reconciled = true
	cs.mu.Unlock()
	h.logger.Info("catalog zone reconciled", zap.String("catalog", h.catalogZone), zap.Int("members", rep.Members),
		zap.Strings("added", rep.Missing), zap.Int("removed", len(rep.Stray)))
}

// managedZones lists every zone of the index.
func managedZones(s *zonestore.Store) ([]string, error) {
	var out []string
	cursor := ""
	for {
		entries, next, _, err := s.List("", cursor, maxListLimit)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			out = append(out, e.Name)
		}
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

// reconcileCatalog compares the catalog with the index and, with fix,
// repairs it under each zone's lock.
func (h *Handler) reconcileCatalog(ctx context.Context, b *backend, cat *catalog.Catalog, fix bool) (*catalog.Report, error) {
	zones, err := managedZones(b.store)
	if err != nil {
		return nil, fmt.Errorf("reading the zone index: %w", err)
	}
	return cat.Reconcile(ctx, zones, fix, b.store.Lock, func(zone string) (bool, error) {
		_, ok, err := b.store.Get(zone)
		return ok, err
	})
}

// catalogHook is the zone lifecycle's hook when a catalog is configured:
// the catalog step of every create (after addzone, before the create is
// recorded as done) and delete. Both steps are idempotent, as the
// lifecycle requires (its reconcile runs them again after a crash).
type catalogHook struct {
	h *Handler
	b *backend
}

// ZoneCreated makes a newly created zone a member.
func (c catalogHook) ZoneCreated(ctx context.Context, zone, typ string) error {
	return c.h.getCatalog(ctx, c.b).ZoneCreated(ctx, zone, typ)
}

// ZoneDeleted takes a deleted zone out of the catalog.
func (c catalogHook) ZoneDeleted(ctx context.Context, zone string) error {
	return c.h.getCatalog(ctx, c.b).ZoneDeleted(ctx, zone)
}

// isCatalogZone reports whether name is the handler's catalog zone, which
// the zone routes must not delete.
func (h *Handler) isCatalogZone(name string) bool {
	return h.catalogZone != "" && strings.EqualFold(strings.TrimSuffix(name, "."), h.catalogZone)
}

// catalogBody answers GET /api/v1/catalog.
type catalogBody struct {
	Zone    string           `json:"zone"`
	Group   string           `json:"group,omitempty"`
	Count   int              `json:"count"`
	Members []catalog.Member `json:"members"`
	// Drift is what a reconcile would fix now.
	Drift *catalog.Report `json:"drift"`
}

// catalogOr404 returns the catalog, answering 404 when none is configured.
func (h *Handler) catalogOr404(w http.ResponseWriter, r *http.Request) (*backend, *catalog.Catalog, bool) {
	if h.catalog == nil {
		writeError(w, http.StatusNotFound, "no catalog zone is configured (zone_api's catalog option)")
		return nil, nil, false
	}
	// The catalog names every zone: an identity limited to some zones
	// was refused by allow (the server action).
	b, ok := h.backendOr500(w)
	if !ok {
		return nil, nil, false
	}
	return b, h.getCatalog(r.Context(), b), true
}

// handleGetCatalog lists the catalog's members and the drift from the
// managed zones.
func (h *Handler) handleGetCatalog(w http.ResponseWriter, r *http.Request, _ params) {
	b, cat, ok := h.catalogOr404(w, r)
	if !ok {
		return
	}
	members, err := cat.Members(r.Context())
	if err != nil {
		writeBadGateway(w, "reading catalog zone %s: %v", h.catalogZone, err)
		return
	}
	rep, err := h.reconcileCatalog(r.Context(), b, cat, false)
	if err != nil {
		writeBadGateway(w, "comparing catalog zone %s with the managed zones: %v", h.catalogZone, err)
		return
	}
	if members == nil {
		members = []catalog.Member{}
	}
	writeJSON(w, http.StatusOK, catalogBody{Zone: h.catalogZone, Group: h.Catalog.Group, Count: len(members), Members: members, Drift: rep})
}

// handleReconcileCatalog repairs the catalog: members for managed zones
// that lack one, no members for zones that are not managed.
func (h *Handler) handleReconcileCatalog(w http.ResponseWriter, r *http.Request, _ params) {
	b, cat, ok := h.catalogOr404(w, r)
	if !ok {
		return
	}
	rep, err := h.reconcileCatalog(r.Context(), b, cat, true)
	if err != nil {
		writeBadGateway(w, "reconciling catalog zone %s: %v", h.catalogZone, err)
		return
	}
	h.logger.Info("catalog zone reconciled", zap.String("catalog", h.catalogZone), zap.Strings("added", rep.Missing), zap.Int("removed", len(rep.Stray)))
	writeJSON(w, http.StatusOK, rep)
}

// unmarshalCatalog reads the catalog subdirective:
//
//	catalog <zone> {
//		group          <name>
//		also_notify    <ip[:port]>...
//		allow_transfer <ip[/len]>...
//	}
func (h *Handler) unmarshalCatalog(d *caddyfile.Dispenser) error {
	h.Catalog = new(CatalogConfig)
	if !d.NextArg() {
		return d.ArgErr()
	}
	h.Catalog.Zone = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	for n := d.Nesting(); d.NextBlock(n); {
		switch d.Val() {
		case "group":
			if !d.AllArgs(&h.Catalog.Group) {
				return d.ArgErr()
			}
		case "also_notify":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Catalog.AlsoNotify = append(h.Catalog.AlsoNotify, args...)
		case "allow_transfer":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			h.Catalog.AllowTransfer = append(h.Catalog.AllowTransfer, args...)
		default:
			return d.Errf("unrecognized catalog subdirective %q", d.Val())
		}
	}
	return nil
}

// Interface guards
var _ zoneservice.Hook = catalogHook{}
