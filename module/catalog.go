package module

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

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
	h.catalogNotify, h.catalogNotifyConf, h.catalogXfr = nil, nil, nil
	for _, s := range c.AlsoNotify {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, err := zoneservice.ServerElement(s)
		if err != nil {
			return fmt.Errorf("catalog also_notify: %v", err)
		}
		h.catalogNotify, h.catalogNotifyConf = append(h.catalogNotify, s), append(h.catalogNotifyConf, e)
	}
	for _, s := range c.AllowTransfer {
		if s = repl.ReplaceKnown(s, ""); s == "" {
			continue
		}
		e, isKey, err := zoneservice.ACLElement(s)
		if err != nil || isKey {
			return fmt.Errorf("catalog allow_transfer: %q is not an address or network", s)
		}
		h.catalogXfr = append(h.catalogXfr, e)
	}
	if h.UpdateKey == nil || (h.UpdateKey.File == "" && h.UpdateKey.Secret == "") {
		return fmt.Errorf("catalog needs update_key (or update_key_file) with its secret: the catalog is changed by signed dynamic updates")
	}
	h.catalogZone = name
	return nil
}

// newCatalog returns the catalog of a backend's service, nil when none
// is configured.
func (h *Handler) newCatalog(store *zonestore.Store, rc *rndc.Client, records *dnsupdate.Updater, updateKey string) *catalog.Catalog {
	if h.catalogZone == "" {
		return nil
	}
	return &catalog.Catalog{
		Zone: h.catalogZone, Group: h.Catalog.Group, Dir: store.Dir(), UpdateKey: updateKey,
		AlsoNotify: h.catalogNotifyConf, AllowTransfer: h.catalogXfr,
		DNS: records.Client(), Control: rc,
		IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists,
	}
}

// catalogFirstRequest reconciles the catalog with the zone index at the
// first request after start (and at later ones until that succeeded). It
// runs before the request's handler takes any zone lock.
func (h *Handler) catalogFirstRequest(ctx context.Context) {
	if h.catalogZone == "" {
		return
	}
	b, err := h.getBackend()
	if err != nil {
		return // the handler answers it
	}
	b.svc.ReconcileCatalogAtStart(ctx)
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

// catalogOr404 returns the backend, answering 404 when no catalog is
// configured.
func (h *Handler) catalogOr404(w http.ResponseWriter, r *http.Request) (*backend, bool) {
	if h.catalogZone == "" {
		writeError(w, http.StatusNotFound, "no catalog zone is configured (zone_api's catalog option)")
		return nil, false
	}
	// The catalog names every zone: an identity limited to some zones
	// was refused by allow (the server action).
	return h.backendOr500(w)
}

// handleGetCatalog lists the catalog's members and the drift from the
// managed zones.
func (h *Handler) handleGetCatalog(w http.ResponseWriter, r *http.Request, _ params) {
	b, ok := h.catalogOr404(w, r)
	if !ok {
		return
	}
	members, err := b.svc.CatalogMembers(r.Context())
	if err != nil {
		writeBadGateway(w, "reading catalog zone %s: %v", h.catalogZone, err)
		return
	}
	rep, err := b.svc.ReconcileCatalog(r.Context(), false)
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
	b, ok := h.catalogOr404(w, r)
	if !ok {
		return
	}
	rep, err := b.svc.ReconcileCatalog(r.Context(), true)
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
