// Package module is zone_api, the Caddy glue of the zone API: it routes,
// authenticates and authorises requests and mounts the front ends: the REST
// API under /api/v1 (package rest), the PowerDNS API (package powerdns).
//
// The handler owns every request whose path starts with /api/v1/ and passes
// any other request to the next handler, so it can share a site with other
// handlers (for example Caddy's metrics handler on /metrics).
package module

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	// The spec CLI (caddy zoneapi-spec) comes with the module.
	_ "github.com/zoneapi/caddy-zoneapi/apispec/speccmd"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/internal/logfilter"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
	"github.com/zoneapi/caddy-zoneapi/internal/version"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Version is the version of the zone API reported by the health endpoint
// and the zoneapi_build_info metric; it is internal/version.Version.
const Version = version.Version

// MaxBodyBytes is the largest request body accepted; larger bodies get 413.
const MaxBodyBytes = 1 << 20

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is an HTTP handler that serves the zone management API. It writes
// zone files into ZoneDir (the directory named reads) and drives named over
// its control channel. Every route except health and ready requires an
// `Authorization: Bearer <token>` header unless authentication is disabled.
type Handler struct {
	config.Options // the options: the handler's Caddy JSON and Caddyfile (package config)

	authDisabled bool
	acc          *auth.RequestGuard // authentication and scopes (auth.go)
	pdnsMount    *frontend.Mount    // the PowerDNS API, when PowerDNS
	logs                            // the module's loggers (observe.go)
	router       *apirouter.Router  // the request path, over the routes
	rest         *rest.API          // the REST front end (rest.go), built with the routes
	evts         *eventsAPI         // the event stream and webhooks (events.go), built with the routes

	conf config.Settings // the options resolved (config.Options.Resolve)

	// sharedRefs are this handler's references to the state shared
	// across config generations (shared.go).
	sharedRefs

	// imports and checkzone are the process's gate of imports and bound
	// of named-checkzone processes (importsPool, checkzonePool), held
	// from Provision to Cleanup.
	imports   *rest.ImportGate
	checkzone *zonecheck.Procs

	views viewTable // conf.Views, with the shared state of each view

	// cell holds the backend, resolved lazily on the first request,
	// because Provision must not touch the disk or BIND (`caddy validate`
	// runs it).
	cell *backendCell

	// gen holds the shared state until Cleanup and the last request in
	// flight (shared.go); nil in a handler built without Provision.
	gen *generation
}

// backendCell guards the lazily resolved backend.
type backendCell struct {
	mu      sync.Mutex
	backend *zoneservice.Server // the zone server
	// stopWatch ends the restart watch
	// (zoneservice.WatchRestartsWhenResolved) and the history's watch
	// (sharedhistory.Follow) at Cleanup.
	stopWatch context.CancelFunc
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.zone_api",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision sets up the handler. It expands placeholders and checks the
// configuration's syntax; it neither reads key files nor contacts BIND.
func (h *Handler) Provision(ctx caddy.Context) error {
	repl := caddy.NewReplacer()
	filterText := h.LogFilter
	if filterText == "" {
		filterText = "{env.RUST_LOG}"
	}
	filter, err := logfilter.Parse(repl.ReplaceKnown(filterText, ""))
	if err != nil {
		return fmt.Errorf("log_filter: %v", err)
	}
	h.setLoggers(ctx.Logger().WithOptions(zap.WrapCore(filter.Wrap)))
	for _, d := range filter.Ignored {
		h.logger.Warn("log_filter directive ignored: its target is not one of this module's", zap.String("directive", d), zap.Strings("targets", logfilter.Targets))
	}
	if err := registerMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %v", err)
	}

	conf, err := h.Options.Resolve()
	if err != nil {
		return err
	}
	h.conf, h.views = *conf, newViewTable(conf.Views)
	if err := h.provisionAuth(ctx); err != nil {
		return err
	}
	if err := h.provisionPowerDNS(); err != nil {
		return err
	}
	h.imports = acquireImports()
	h.checkzone = acquireCheckzone()
	h.router = h.newRouter()
	h.cell = new(backendCell)
	h.gen = newGeneration(func() { releaseShared(h) })
	watchCtx, stopWatch := context.WithCancel(context.Background())
	h.cell.stopWatch = stopWatch
	go zoneservice.WatchRestartsWhenResolved(reqlog.Quiet(watchCtx), h.getBackend) // its control commands not logged one by one
	go sharedhistory.Follow(watchCtx, h.History.On(), h.History.NotifyAddr(), h.cell.resolved)
	hooks, err := webhooks(h.Events)
	if err == nil && len(hooks) > 0 && !h.History.On() {
		err = fmt.Errorf("events: webhooks deliver the change history's entries; they need the history on (remove history off)")
	}
	if err != nil {
		stopWatch()
		return err
	}
	h.evts.Start(watchCtx, hooks)
	if err := h.acquire(h.conf.ZoneDir, h.conf.DNSServer, h.conf.UpdateKey, h.conf.RNDCTimeout); err != nil {
		return err
	}
	if err := h.views.acquire(h.conf.ZoneDir, h.conf.RNDCTimeout); err != nil {
		return err
	}
	if h.History.On() && h.conf.ZoneDir != "" {
		if err := h.acquireHistory(h.conf.ZoneDir); err != nil {
			return err
		}
	}
	registerLocal(h) // for LocalTransport (local.go)
	return nil
}

// Validate checks the configuration without touching the disk or BIND.
func (h *Handler) Validate() error {
	if err := h.validateDocs(); err != nil {
		return err
	}
	return h.conf.Validate()
}

// Cleanup releases the handler: it stops its background work, and gives
// back its references to the zone store, the DNS updater and the change
// history (shared.go), which close when no handler of any config
// generation uses them any more, and closes the idle control-channel
// connections of this config generation; zoneapi_zones then stops
// counting the directory. Caddy calls it while the generation's last
// requests may still be in flight (a reload does not wait for them): the
// references are given back when the last of them has finished.
func (h *Handler) Cleanup() error {
	unregisterLocal(h)
	if h.cell == nil {
		if h.imports != nil { // Provision failed after taking it
			releaseImports()
		}
		if h.checkzone != nil {
			releaseCheckzone()
		}
		h.guard().Release()
		return nil
	}
	if h.cell.stopWatch != nil {
		h.cell.stopWatch()
	}
	if h.gen != nil {
		h.gen.leave()
	} else {
		releaseShared(h)
	}
	return nil
}

// releaseShared gives back the shared state (Cleanup, once the last
// request of the generation has finished).
func releaseShared(h *Handler) {
	h.release()
	h.views.release()
	releaseImports()
	releaseCheckzone()
	h.guard().Release() // the process's limits (auth.AcquireLimits)
	h.cell.mu.Lock()
	b := h.cell.backend
	h.cell.mu.Unlock()
	if b != nil {
		b.Close() // the inventory's refresh, the control connections
	}
}

// ServeHTTP serves requests under /api/v1/ and passes the rest to next.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.URL.Path != apiPrefix && !strings.HasPrefix(r.URL.Path, apiPrefix+"/") && !h.isPDNS(r) {
		return next.ServeHTTP(w, r)
	}
	if h.gen != nil {
		h.gen.enter()
		defer h.gen.leave()
	}
	// The request's log lines and metrics (package reqlog) around it.
	reqlog.Serve(h.httpLog, h.dnsTrace, w, r, h.router.Serve)
	return nil
}

// writeError writes the {error, message} body (rest.WriteError), or the
// mounted front end's (reqlog.Recorder.ErrorBody) on its paths.
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	if rec, ok := w.(*reqlog.Recorder); ok && rec.ErrorBody != nil {
		rec.ErrorBody(w, status, fmt.Sprintf(format, args...))
		return
	}
	rest.WriteError(w, status, format, args...)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
