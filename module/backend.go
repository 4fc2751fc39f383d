package module

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// getBackend resolves keys and opens the zone store on first use. A
// failure is not remembered: the next request tries again, so fixing a key
// file or creating the zone directory needs no reload.
func (h *Handler) getBackend() (*zoneservice.Server, error) {
	h.cell.mu.Lock()
	defer h.cell.mu.Unlock()
	if h.cell.backend != nil {
		return h.cell.backend, nil
	}
	if h.updater == nil { // a handler built without Provision (unit tests)
		h.store, h.updater = zoneservice.NewDirectory(h.conf.ZoneDir, nil), sharedupdater.New(reqlog.DNSHooks())
	}
	key, err := h.conf.RNDCKey.Load()
	if err != nil {
		return nil, fmt.Errorf("loading rndc key: %w", err)
	}
	updateKey := ""
	var (
		records *dnsupdate.Updater
		tsig    *rndc.Key
	)
	if h.conf.UpdateKey != nil {
		updateKey, tsig, err = h.conf.UpdateKey.ResolveUpdate()
		if err != nil {
			return nil, fmt.Errorf("loading update key: %w", err)
		}
	}
	getUpdater := h.updater.Get
	if h.views.def != "" {
		getUpdater = h.updater.GetForView // every message signed: the default view's key picks it
	}
	if records, err = getUpdater(h.conf.DNSServer, tsig, h.conf.RNDCTimeout); err != nil {
		return nil, err
	}
	store, err := h.store.Store()
	if err != nil {
		return nil, fmt.Errorf("opening zone directory: %w", err)
	}
	rc := &rndc.Client{Addr: h.conf.RNDCServer, Key: key, Timeout: h.conf.RNDCTimeout, Trace: reqlog.RNDCTraceHook(h.rndcTrace),
		Observe: reqlog.ObserveControl(h.rndcLog), Expiry: h.conf.RNDCTimeout + commandExpiry}
	hist, err := openHistory(h.History, &h.sharedRefs, h.logger)
	if err != nil {
		return nil, err
	}
	cfg := h.serverConfig(rc)
	cfg.Root = zoneservice.ViewParts{Name: h.views.def, Directory: h.store, Store: store, Updater: records, UpdateKey: updateKey}
	cfg.History = hist // one history; entries name the view
	for _, name := range h.views.names {
		if vs := h.views.other[name]; vs != nil {
			parts, err := vs.parts(h.conf.ZoneDir, h.conf.RNDCTimeout)
			if err != nil {
				return nil, err
			}
			cfg.Views = append(cfg.Views, parts)
		}
	}
	cfg.Inventory = newInventory(h.conf.StatsURL, h.conf.RNDCTimeout, time.Duration(h.InventoryRefresh), h.logger, rc, store)
	h.cell.backend = zoneservice.NewServer(cfg)
	return h.cell.backend, nil
}

// backendOr500 returns the backend or answers 500 when it cannot be set up
// (unreadable key file, missing zone directory).
//
// The first time in the process it also runs the start-up reconciles
// (zoneservice.Server.Start: the zone directory with named, the catalog
// with the index). Handlers call it only once the request is authorised
// completely (its route, zone and records), so that nothing an
// unauthorised request does reaches named or the disk.
func (h *Handler) backendOr500(w http.ResponseWriter) (*zoneservice.Server, bool) {
	b, err := h.getBackend()
	if err != nil {
		h.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return nil, false
	}
	b.Start(context.Background(), "")
	return b, true
}
