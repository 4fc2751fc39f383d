package module

import (
	"net/http"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rest"
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

// changesPage answers a page of the change history (package rest's
// ChangesRoutes resolved its zone and view) by package events
// (events.API.HandleChanges), from the backend's history.
func (h *Handler) changesPage(w http.ResponseWriter, r *http.Request, p rest.ChangesPage) {
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	var log frontend.ChangeLog
	if b.Root().History != nil {
		log = b.Root().History // not a nil *history.Log in a ChangeLog
	}
	h.evts.HandleChanges(w, r, log, events.Page(p))
}

// resolved returns the backend once a request (or the restart watch)
// resolved it, else nil; it never resolves it.
func (c *backendCell) resolved() *zoneservice.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backend
}
