package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ServerStatusReader reads named's state (the REST API's server status
// and readiness).
type ServerStatusReader interface {
	// ServerStatus returns named's `rndc status`, parsed. Errors: the
	// control channel fails (the control kind: 500 "Bad Gateway") or
	// named does not answer (504; the service's error names the command
	// "status" and wraps the control channel's error). Read-only, so
	// idempotent.
	ServerStatus(ctx context.Context) (*zonemodel.ServerStatus, error)
}

// Reconciler repairs what a crash or an operator left behind, in every
// view.
type Reconciler interface {
	// Reconcile settles every pending intent (creates, deletes, imports
	// interrupted), discards a torn index line, adopts the zones named
	// serves with their file that the index lost, moves aside files no
	// zone uses and, with full, asks named about every indexed zone and
	// reports those it does not serve; with views, each view in turn,
	// each item of the one report naming its view. Each repair is made
	// whole under the zone's lock; the reconcile as a whole is not
	// atomic: it stops at the first view that fails (the error: the
	// storage, busy or control kind), keeping the repairs made so far.
	// Idempotent: a second reconcile finds nothing left to fix.
	Reconcile(ctx context.Context, full bool) (*zonemodel.ReconcileReport, error)
}

// NotLoadedLister names the managed zones named does not load.
type NotLoadedLister interface {
	// NotLoaded returns the managed primary zones the last full
	// reconcile found named not loading, each with why (Detail), nil
	// when none. It reads what that reconcile kept: no I/O, no error.
	NotLoaded() []zonemodel.ReconcileFix
}

// HistoryChecker tells whether the change history can write.
type HistoryChecker interface {
	// CheckHistory returns nil without a history or when its last write
	// succeeded; when that write failed, whether its directory takes a
	// write again (a file written, synced and removed, which clears the
	// failure: changes are made meanwhile, but recorded only in the
	// log). It writes no entry, so it is idempotent.
	CheckHistory() error
}
