package zoneservice

import (
	"context"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The Service's concerns: the records and the capture of their changes
// apart from the zone lifecycle and the recovery. The record concern is a
// type of its own, Records (records.go), which the Service hands out
// (Service.Records) and whose fields are only those records need; the
// others are interfaces that *Service implements, so that a front end
// (or a later split of the Service into types of their own) depends only
// on the concern it uses.

// ChangeCapture is the capture of the record changes made elsewhere (by
// a dynamic update of another client, a zone file edited and reloaded):
// each is recorded in the change history as external, once, in serial
// order, after the changes the service itself made. The capture of one
// zone is the record concern's (Records.Noticed: the history, the
// updater's IXFR and its writer's turn, nothing of the lifecycle); the
// Service's Noticed is it, and CatchUp, Notices and Follows, which pick
// the zones (the index, the inventory, the zone cache's hook), are the
// Service's.
type ChangeCapture interface {
	// Noticed records what changed in zone since the history's last
	// serial of it (named's NOTIFY said it changed).
	Noticed(ctx context.Context, zone string) error
	// CatchUp runs Noticed for every managed primary zone.
	CatchUp(ctx context.Context)
	// Notices returns the receiver of NOTIFYs until ctx ends, which runs
	// Noticed for each zone handed to it, merging repeated notices.
	Notices(ctx context.Context) (notice func(zone string))
	// Follows reports whether the service records the changes of zone.
	Follows(ctx context.Context, zone string) bool
}

// Lifecycle is the zone lifecycle: zones created (from a request, a zone
// file or a transfer, or a copy), adopted, changed, commanded and
// deleted. Create and delete are crash-safe (a durable intent first);
// an unanswered control command returns ErrOutcomeUnknown and is settled
// by the next operation on the zone or by Recovery. Errors are *Error of
// the lifecycle kinds (ErrExists, ErrNotFound, ErrControl, ErrStorage, …).
type Lifecycle interface {
	Create(ctx context.Context, z *zonemodel.Zone, fp string) (*Created, error)
	Import(ctx context.Context, name string, src *ImportSource, fp string) (*Imported, error)
	Copy(ctx context.Context, from, to, fp string) (*Imported, error)
	PreviewImport(ctx context.Context, name string, src *ImportSource, fp string) (*Previewed, error)
	PreviewCopy(ctx context.Context, from, to, fp string) (*Previewed, error)
	Adopt(ctx context.Context, name string, opts AdoptOptions) (*Adopted, error)
	Modify(ctx context.Context, name string, ch *SettingsChange) (*Modified, error)
	Reload(ctx context.Context, name string) (string, error)
	Freeze(ctx context.Context, name string) (string, error)
	Thaw(ctx context.Context, name string) (string, error)
	Notify(ctx context.Context, name string) (*Notified, error)
	Retransfer(ctx context.Context, name string) (string, error)
	Delete(ctx context.Context, name string, opts DeleteOptions) (*Deleted, error)
}

// Recovery completes or undoes what a crash, an unanswered command or a
// restart of named left behind: Reconcile on demand (full: also the
// zones named does not load, NotLoaded), ReconcileAtStart once per zone
// directory and process, WatchRestarts and HealAfterRestart when named
// restarts.
type Recovery interface {
	Reconcile(ctx context.Context, full bool) (*Report, error)
	ReconcileAtStart(ctx context.Context)
	NotLoaded() []Fix
	WatchRestarts(ctx context.Context, interval time.Duration)
	HealAfterRestart(ctx context.Context, why string)
}

// Interface guards: the Service is every concern.
var (
	_ ChangeCapture = (*Service)(nil)
	_ Lifecycle     = (*Service)(nil)
	_ Recovery      = (*Service)(nil)
)
