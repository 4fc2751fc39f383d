// Package externaldns is the Caddy module of the webhook provider for
// Kubernetes external-dns: the HTTP handler
// http.handlers.zone_api_external_dns (Caddyfile directive
// zone_api_external_dns) over the zones its configuration names, on BIND
// through RFC 2136 and AXFR. It is the webhook's Caddy glue, as package
// module is zone_api's: its configuration, provisioning and cleanup, the
// DNS updater shared across config generations, the change history, and
// the wiring of the webhook's HTTP side (package externaldns/webhook: the
// protocol's endpoints) onto its provider (package externaldns/provider),
// which the HTTP side reaches only through the front ends' contract
// (frontend.ExternalDNSProvider) and which reaches the zone service only
// through it too (frontend.ExternalDNSZones, implemented by package
// frontend/adapter).
//
// GET /records lists the zones' records as endpoints, read from the
// serial-keyed AXFR cache (an unchanged zone costs one SOA query); POST
// /records applies plan.Changes as one atomic UPDATE per zone whose
// prerequisites are the updateOld RRsets exactly as external-dns read them
// (and, for creates, that the RRset does not exist), so a change made
// meanwhile by someone else fails the whole zone's update with 409 and
// nothing changes; GET /healthz answers 503 while the change history
// (with zone_dir) cannot be written, as zone_api's /api/v1/ready does.
//
// A name goes to the configured zone with the longest matching suffix;
// names outside them are refused (400) before anything is sent.
// external-dns sends no credentials: bind the site to loopback (a sidecar)
// or put authentication in front.
package externaldns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/externaldns/provider"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/internal/keyconf"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"

	"github.com/zoneapi/caddy-zoneapi/externaldns/webhook"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/frontend/adapter"
)

// MediaType is the webhook protocol's media type and version.
const MediaType = webhook.MediaType

// DefaultDNSServer is named's DNS address when dns_server is not set.
const DefaultDNSServer = "127.0.0.1:53"

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is the external-dns webhook provider.
type Handler struct {
	// Zones are the zones the webhook may read and change, e.g.
	// ["example.com", "k8s.example.org"]. Required. An item may be a
	// placeholder ({env.*}, {file.*}) holding several zones separated by
	// commas or spaces.
	Zones []string `json:"zones,omitempty"`

	// DNSServer is named's DNS port (host:port) for updates and AXFR.
	// Default: 127.0.0.1:53.
	DNSServer string `json:"dns_server,omitempty"`

	// UpdateKey is the TSIG key updates and transfers are signed with: a
	// key file in BIND syntax (file, and name to pick one of several), or
	// name, algorithm and secret. Placeholders ({env.*}, {file.*}) are
	// expanded on first use.
	UpdateKey *KeyConfig `json:"update_key,omitempty"`

	// Timeout bounds each DNS exchange. Default: 10s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// SerialUpdateMethod is how changes set a zone's next serial:
	// increment (default), unixtime or date, as named's
	// serial-update-method.
	SerialUpdateMethod string `json:"serial_update_method,omitempty"`

	// ZoneDir, if set, is the zone_dir of the zone_api handler that
	// manages these zones: the webhook's changes are then recorded in
	// its change history (docs/history.md) with frontend externaldns and
	// identity external-dns. Without it they are recorded as external
	// changes, found in named.
	ZoneDir string `json:"zone_dir,omitempty"`

	zones   []string // canonical: lower case, no trailing dot
	server  string
	timeout time.Duration
	method  dnsupdate.SerialMethod
	logger  *zap.Logger

	st *state

	// shared is this handler's reference to the DNS updater shared
	// across config generations, and sharedKey its pool key.
	shared    *sharedupdater.Updater
	sharedKey string
}

// state is what a handler learns on its first requests.
type state struct {
	mu sync.Mutex
	// prov is the provider over the zone service, once set up.
	prov *provider.Provider
	// hist is the change history, once opened (nil without zone_dir, or
	// when another process writes it); histOpen tells it was.
	hist     *history.Log
	histOpen bool
	// releaseHistory gives back the change history, once opened.
	releaseHistory func()
}

// KeyConfig is a TSIG key: a BIND key file or an inline name, algorithm
// and secret; see keyconf.Config.
type KeyConfig = keyconf.Config

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.zone_api_external_dns",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision checks and canonicalizes the configuration; it touches
// neither BIND nor the disk.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.st = new(state)
	h.zones = h.zones[:0]
	repl := caddy.NewReplacer()
	for _, item := range h.Zones {
		// A placeholder may stand for several zones, separated by commas
		// or spaces: zones {env.EXTERNAL_DNS_ZONES}.
		for _, z := range strings.FieldsFunc(repl.ReplaceKnown(item, ""), func(r rune) bool { return r == ',' || r == ' ' }) {
			c, ok := provider.CanonicalZone(z)
			if !ok {
				return fmt.Errorf("zones: %q is not a domain name", z)
			}
			if !slices.Contains(h.zones, c) {
				h.zones = append(h.zones, c)
			}
		}
	}
	h.server = DefaultDNSServer
	if h.DNSServer != "" {
		h.server = caddy.NewReplacer().ReplaceKnown(h.DNSServer, "")
	}
	h.timeout = time.Duration(h.Timeout)
	if h.timeout <= 0 {
		h.timeout = dnsupdate.DefaultTimeout
	}
	m, err := dnsupdate.ParseSerialMethod(h.SerialUpdateMethod)
	if err != nil {
		return fmt.Errorf("serial_update_method: %v", err)
	}
	h.method = m
	// The updater is shared across config generations: a reference now
	// (nothing is opened), released in Cleanup.
	h.sharedKey = sharedupdater.Key("zone_api_external_dns", h.server, h.UpdateKey, h.timeout)
	h.shared = sharedupdater.Acquire(h.sharedKey, dnsupdate.Hooks{})
	// The webhook takes no credentials (external-dns sends none): on a
	// listener other hosts can reach, anyone can change every record of
	// its zones. Say so, as zone_api does for its basic mode.
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv != nil {
		if exposed := auth.Exposed(srv.Listen); len(exposed) > 0 {
			h.logger.Warn("the external-dns webhook takes no credentials, and the server listens on addresses reachable from other hosts: anyone who can reach them can change every record of its zones; bind the site to loopback (external-dns's sidecar) or put authentication in front",
				zap.Strings("listen", exposed), zap.Strings("zones", h.zones))
		}
	}
	return nil
}

// Cleanup releases the handler's reference to the shared DNS updater,
// whose connections close when no config generation uses it any more.
func (h *Handler) Cleanup() error {
	if h.st != nil {
		h.st.mu.Lock()
		if h.st.releaseHistory != nil {
			h.st.releaseHistory()
			h.st.releaseHistory = nil
		}
		h.st.mu.Unlock()
	}
	if h.sharedKey != "" {
		sharedupdater.Release(h.sharedKey)
		h.sharedKey, h.shared = "", nil
	}
	return nil
}

// Validate checks that zones and a key are configured.
func (h *Handler) Validate() error {
	if len(h.zones) == 0 {
		return errors.New("zones: name at least one zone the webhook may change")
	}
	if h.UpdateKey == nil || !h.UpdateKey.HasSecret() {
		return errors.New("update_key: a TSIG key with its secret is needed to sign updates (update_key_file <path> or update_key <name> <algorithm> <secret>)")
	}
	return h.UpdateKey.Validate("update_key", true)
}

// webhookProvider returns the provider the webhook works through, over the zone
// service's record changes and reads only (through the contract's
// adapter), on an updater loaded on first
// use (a failure is retried on the next request). The updater is shared
// with every config generation that has the same settings and released in
// Cleanup (internal/sharedupdater).
func (h *Handler) webhookProvider() (frontend.ExternalDNSProvider, error) {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if h.st.prov != nil {
		return h.st.prov, nil
	}
	key, err := h.UpdateKey.Load()
	if err != nil {
		return nil, fmt.Errorf("loading update key: %w", err)
	}
	shared := h.shared
	if shared == nil { // a handler built without Provision (tests)
		shared = new(sharedupdater.Updater)
	}
	u, err := shared.Get(h.server, &key, h.timeout)
	if err != nil {
		return nil, err
	}
	l, err := h.historyLocked()
	if err != nil {
		return nil, err
	}
	// The same zone server as zone_api's (zoneservice.Server), of record
	// operations only: no zone directory, no control channel.
	srv := zoneservice.NewServer(zoneservice.ServerConfig{Root: zoneservice.ViewParts{Updater: u}, SerialMethod: h.method, Logger: h.logger, History: l})
	root := srv.Root()
	zones := adapter.Zones{Service: func(context.Context) (*zoneservice.Service, error) { return root, nil }}
	h.st.prov = &provider.Provider{Zones: h.zones, Service: zones}
	return h.st.prov, nil
}

// historyLocked opens the change history of zone_dir on first use, with
// h.st.mu held: nil without zone_dir, or when another process writes it
// (the webhook's changes are then recorded there as external, found in
// named). A failure is retried on the next call.
func (h *Handler) historyLocked() (*history.Log, error) {
	if h.st.histOpen {
		return h.st.hist, nil
	}
	if dir := caddy.NewReplacer().ReplaceKnown(h.ZoneDir, ""); dir != "" {
		l, release, err := sharedhistory.Attach(filepath.Join(dir, ".zoneapi", "history"))
		switch {
		case errors.Is(err, history.ErrLocked):
			h.logger.Warn("the change history is written by another process; the webhook's changes are recorded there as external", zap.String("zone_dir", dir))
		case err != nil:
			return nil, fmt.Errorf("opening the change history: %w", err)
		default:
			h.st.hist, h.st.releaseHistory = l, release
		}
	}
	h.st.histOpen = true
	return h.st.hist, nil
}

// historyHealth opens the change history if it is not open yet (so the
// first probe already sees a failing one) and checks it (history.Log.Check).
func (h *Handler) historyHealth() error {
	if h.st == nil || h.ZoneDir == "" {
		return nil
	}
	h.st.mu.Lock()
	l, err := h.historyLocked()
	h.st.mu.Unlock()
	if err != nil || l == nil {
		return err
	}
	return l.Check()
}

// ServeHTTP serves the webhook's protocol (package externaldns/webhook)
// over the provider.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	api := webhook.API{Zones: h.zones, Provider: h.webhookProvider, Health: h.historyHealth, Logger: h.logger}
	api.ServeHTTP(w, r)
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)

	_ frontend.ExternalDNSProvider = (*provider.Provider)(nil)
)
