package module

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// commandExpiry is added to the rndc timeout to give each control command's
// expiry: named refuses a command it reads later than that after it was
// sent, so a command that timed out cannot take effect after it. named's
// clock must agree with this host's to well within it.
const commandExpiry = 10 * time.Second

// newService builds the zone service of a backend.
func (h *Handler) newService(store *zonestore.Store, c *rndc.Client, updateKey string) *zoneservice.Service {
	var keyDirs []string
	if d := caddy.NewReplacer().ReplaceKnown(h.KeyDirectory, ""); d != "" {
		keyDirs = []string{d}
	}
	return &zoneservice.Service{
		Store:      store,
		Control:    c,
		UpdateKey:  updateKey,
		SendWithin: h.rndcTimeout,
		Expiry:     c.Expiry,
		KeyDirs:    keyDirs,
		Logger:     h.logger,
	}
}

// reconciles remembers, per zone directory and for the whole process, when
// the start-up reconcile last ran and whether it succeeded, so that it runs
// at the first request after start and is retried (at most every
// reconcileRetry) until it succeeds.
var reconciles = struct {
	sync.Mutex
	m map[string]*reconcileState
}{m: map[string]*reconcileState{}}

type reconcileState struct {
	mu   sync.Mutex
	done bool
	last time.Time
}

const reconcileRetry = 5 * time.Second

// startupReconcile runs the lifecycle's reconcile once per zone directory
// and process, at the first request that needs the backend: it completes
// or undoes what a crash left half done before the request is served.
func (h *Handler) startupReconcile(ctx context.Context, b *backend) {
	reconciles.Lock()
	st := reconciles.m[b.store.Dir()]
	if st == nil {
		st = &reconcileState{}
		reconciles.m[b.store.Dir()] = st
	}
	reconciles.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done || time.Since(st.last) < reconcileRetry && !st.last.IsZero() {
		return
	}
	st.last = time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*h.rndcTimeout)
	defer cancel()
	rep, err := b.svc.Reconcile(ctx, false)
	h.logReconcile("start-up reconcile", rep, err)
	st.done = err == nil
}

func (h *Handler) logReconcile(msg string, rep *zoneservice.Report, err error) {
	fields := []zap.Field{zap.Int("fixed", len(rep.Fixed)), zap.Int("pending", len(rep.Pending)), zap.Int("problems", len(rep.Problems))}
	switch {
	case err != nil:
		h.logger.Error(msg+" failed", append(fields, zap.Error(err))...)
	case len(rep.Fixed)+len(rep.Pending)+len(rep.Problems) > 0:
		h.logger.Warn(msg, append(fields, zap.Any("report", rep))...)
	default:
		h.logger.Debug(msg, fields...)
	}
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
// zones named does not serve.
func (h *Handler) handleReconcile(w http.ResponseWriter, r *http.Request, _ params) {
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	rep, err := b.svc.Reconcile(r.Context(), true)
	h.logReconcile("reconcile", rep, err)
	if err != nil {
		h.lifecycleFailed(w, "", err)
		return
	}
	msg := "nothing to repair"
	if len(rep.Fixed) > 0 || len(rep.Pending) > 0 || len(rep.Problems) > 0 {
		msg = "reconciled: see fixed, pending and problems"
	}
	writeJSON(w, http.StatusOK, reconcileBody{Success: true, Message: msg, Report: rep})
}
