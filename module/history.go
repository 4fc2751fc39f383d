package module

import (
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// HistoryConfig configures the change history (docs/history.md):
// package config's HistoryConfig.
type HistoryConfig = config.HistoryConfig

// historyDir is where the history of a zone directory is kept.
func historyDir(zoneDir string) string { return filepath.Join(zoneDir, ".zoneapi", "history") }

// openHistory opens (or shares) the history that refs holds (acquireHistory in
// Provision); Cleanup gives it back once the generation's last request
// has finished.
func openHistory(c *HistoryConfig, refs *sharedRefs, logger *zap.Logger) (*history.Log, error) {
	if !c.On() || refs.history == nil {
		return nil, nil
	}
	var opts history.Options
	if c != nil {
		opts.MaxAge, opts.MaxSize, opts.SyncEach = time.Duration(c.MaxAge), c.MaxSize, c.SyncEach
	}
	return refs.history.OpenUnlessLocked(opts, logger)
}

// handleListChanges answers GET /api/v1/changes (every zone the identity
// may read) and GET /api/v1/zones/{name}/changes: the zone and the view
// resolved here, the page of the history by package events
// (events.API.HandleChanges).
func (h *Handler) handleListChanges(w http.ResponseWriter, r *http.Request, p apirouter.Params) {
	zone := ""
	if p.Route != nil && strings.Contains(p.Route.Template, "{name}") {
		var err error
		if zone, err = zonemodel.NormalizeZoneName(p.Name); err != nil {
			writeError(w, http.StatusBadRequest, "invalid zone name %q: %v", p.Name, err)
			return
		}
	}
	// ?view= selects the entries of one view, read as every route reads
	// it; the default view's zones are recorded without a view.
	view, viewErr := p.View, p.ViewErr
	if !p.Route.TakesView() {
		view, viewErr = rest.RequestView(r)
		view = h.views.rest().Named(view)
	}
	if err := h.rest.CheckView(view, viewErr); err != nil {
		rest.WriteFailure(w, err)
		return
	}
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	var log frontend.ChangeLog
	if b.Root().History != nil {
		log = b.Root().History // not a nil *history.Log in a ChangeLog
	}
	h.evts.HandleChanges(w, r, log, events.Page{Zone: zone, View: view,
		DefaultView: view != "" && view == h.views.def, Limit: rest.DefaultListLimit, MaxLimit: rest.MaxListLimit})
}

// resolved returns the backend once a request (or the restart watch)
// resolved it, else nil; it never resolves it.
func (c *backendCell) resolved() *zoneservice.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backend
}
