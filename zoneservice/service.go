// Package zoneservice is the zone service: every operation on a zone
// and its records that a front end (the REST handler of package module,
// the external-dns webhook, the Caddy DNS provider, and those to come)
// needs, as Go methods on domain types with typed errors (*Error). It
// knows nothing of HTTP or Caddy; it drives named through the control
// channel (package rndc), RFC 2136 updates and zone transfers (package
// dnsupdate) and the zone directory (package zonestore).
//
// Front ends reach it through a Server (server.go), which a
// configuration builds once (NewServer): it holds the Service of each
// view of named, starts the start-up reconciles from one place (Start),
// runs the restart watch of every view, and lists the managed zones
// across views, scoped. What the process keeps of a zone directory
// across configurations is its Directory (directory.go), which the front
// end holds (the Caddy module, in a caddy.UsagePool).
//
// Create and delete are made crash-safe by a durable write-ahead intent
// recorded before anything is touched, and the reconciler completes or
// undoes, from what named reports, whatever a crash or an unanswered
// control command left half done. The Service depends on small interfaces
// of the control channel (Control) and of the zone store (Store).
//
// A create records "creating Z" (with a fingerprint of the request), writes
// the zone file exclusively, runs addzone, and then, in one append to the
// index, adds the index entry and marks the intent done. A delete records
// "deleting Z", runs `delzone -clean` (named removes the zone's file only
// after it has removed the zone from its new-zone database, which makes
// the file's disappearance the sign that the removal is durable), removes
// what is left (journals, DNSSEC keys) and then removes the index entry
// and marks the intent done. A command that was sent but not answered is
// never rolled back: the intent stays pending and ErrOutcomeUnknown is
// returned; the next operation on the zone, or Reconcile, settles it from
// what named then reports. A command carries an expiry (see
// rndc.Client.Expiry) after which named refuses it, so from the intent's
// NotAfter on, what named reports is final.
package zoneservice

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Control is the part of named's control channel the service uses;
// *rndc.Client implements it. Errors are those of package rndc:
// rndc.IsNotFound, rndc.IsAlreadyExists and rndc.OutcomeUnknown classify
// them.
type Control interface {
	AddZone(ctx context.Context, zs *rndc.ZoneStatement) (string, error)
	DelZone(ctx context.Context, zone string, clean bool) (string, error)
	ShowZoneStatement(ctx context.Context, zone string) (*rndc.ZoneStatement, error)
	ModZone(ctx context.Context, zs *rndc.ZoneStatement) (string, error)
	ZoneStatus(ctx context.Context, zone string) (*rndc.ZoneStatus, error)
	Reload(ctx context.Context, zone string) (string, error)
	Freeze(ctx context.Context, zone string) (string, error)
	Thaw(ctx context.Context, zone string) (string, error)
	Notify(ctx context.Context, zone string) (string, error)
	Retransfer(ctx context.Context, zone string) (string, error)
	LoadKeys(ctx context.Context, zone string) (string, error)
	Status(ctx context.Context) (*rndc.ServerStatus, error)
}

// Store is the zone store as the service uses it; *zonestore.Store
// implements it. It is the four roles below, each with only the methods
// the service calls.
type Store interface {
	Locks
	Index
	Intents
	Files
}

// Locks serialises the operations on one zone, across processes: Lock
// waits for the zone's lock (or ctx) and returns its release.
type Locks interface {
	Lock(ctx context.Context, zone string) (unlock func(), err error)
}

// Index is the index of the zones the service manages: Get reports a
// zone's entry, Put adds or replaces one, Remove deletes one (a pending
// intent stays pending), List pages through them ("" and 0: all).
type Index interface {
	Get(zone string) (zonestore.Entry, bool, error)
	Put(e zonestore.Entry) error
	Remove(zone string) error
	List(typ, cursor string, limit int) ([]zonestore.Entry, string, int, error)
}

// Intents are the write-ahead intents of creates and deletes, recorded in
// the index: Begin records one durably; Complete marks it done in the
// same append as its index change (put, del, or neither when the
// operation was undone); CompleteCreate is Complete of a create named
// executed, without an fsync of its own (the pending intent settles to
// the same outcome, see zonestore.Store.CompleteCreate); PendingIntent and PendingIntents report those not
// done; RepairIndex truncates a torn last line of the index.
type Intents interface {
	Begin(in zonestore.Intent) error
	Complete(zone string, put *zonestore.Entry, del bool) error
	CompleteCreate(zone string, put *zonestore.Entry) error
	PendingIntent(zone string) (zonestore.Intent, bool, error)
	PendingIntents() ([]zonestore.Intent, error)
	RepairIndex() (int64, error)
}

// Files is the zone directory, through which the service reads and writes
// every file: Dir and FilePath name it and a zone's master file; HasFile
// reports whether that file exists; ReadFile reads it (a regular file of
// at most max bytes); CreateFile writes it atomically and
// exclusively (zonestore.ErrExists); DiscardFile removes it and its
// journal; Exists reports whether a file elsewhere (an adopted zone's)
// exists; RemoveZoneFiles removes everything a deleted zone left;
// MoveAside keeps a file no zone uses for the operator; ZoneFiles lists
// the zones that have a master file.
type Files interface {
	Dir() string
	FilePath(zone string) string
	HasFile(zone string) (bool, error)
	ReadFile(zone string, max int64) ([]byte, bool)
	Exists(path string) (bool, error)
	CreateFile(zone string, data []byte) (string, error)
	DiscardFile(zone string) error
	RemoveZoneFiles(zone string) ([]string, error)
	MoveAside(zone string) (string, error)
	ZoneFiles() ([]string, error)
	Journals(zone string) (map[string]int64, error)
	RemoveEmptyJournals(zone string) ([]string, error)
}

// Hook is an optional step run in the same operation as a zone's creation
// and deletion (the catalog zone's member, for instance). ZoneCreated runs
// after named added the zone and before the create is recorded as done;
// when it fails the create is undone and ErrHook returned. ZoneDeleted
// runs after named removed the zone and before the delete is recorded as
// done; when it fails, the delete stays pending (the next request for the
// zone or Reconcile runs it again) and ErrHook is returned. Both may be
// called again for the same zone after a crash, so they must be
// idempotent.
type Hook interface {
	ZoneCreated(ctx context.Context, zone, zoneType string) error
	ZoneDeleted(ctx context.Context, zone string) error
}

// Service performs the zone operations. Set Store and Control, and
// Updater for the record operations; the other fields are optional. It
// is safe for concurrent use: operations on one zone are serialised by
// the store's zone lock. Every operation that changes something goes
// through one method of its own (Create, Delete, Modify, Reload, Freeze,
// Thaw, Notify, Retransfer, Import, Copy, Reconcile, ReconcileCatalog;
// the record changes through its Records': AddRecord, RemoveRecord,
// ReplaceRecord, ApplyChanges, ApplyChangesSettingSOA, ApplyIf): the one
// place where that operation is done, and where its change event will be
// emitted. The record concern is a type of its own (Records, which
// Service.Records hands out), with only the fields records need: the
// Service has no record method of its own.
type Service struct {
	Store   Store
	Control Control
	// View is the view of named whose zones the service manages ("":
	// none, on a server without views, or zones addressed without one).
	// It names the zones' identity (a zone is its name in its view); the
	// service's Control, Store and Updater are bound to it (their
	// commands name it, its files and index are its own, its DNS
	// messages reach it), so that nothing else of the service depends
	// on it.
	View string
	// Updater sends record changes (RFC 2136) and reads zones (AXFR);
	// without it the record operations fail.
	Updater *dnsupdate.Updater
	// SerialMethod is how record changes set a zone's next serial.
	SerialMethod dnsupdate.SerialMethod
	// Catalog, if set, is the catalog zone (RFC 9432) the service keeps
	// in step with the zones: a create adds the member and a delete
	// removes it, as the service's own hook (see Hook), and the catalog
	// zone itself cannot be deleted.
	Catalog *catalog.Catalog
	// CatalogNotify are the catalog's secondaries ("ip:port"), which
	// Notify notifies as well as the zone's also-notify servers.
	CatalogNotify []string
	// Checker, if set and installed, is named-checkzone, which checks
	// the zones of Import and Copy as named would load them; without it
	// they are checked by package zonemodel's rules (ImportedZone).
	Checker *zonecheck.Checker
	// Hook, if set, runs in create and delete after the catalog's step
	// (see Hook).
	Hook Hook
	// Inventory, if set, lists every zone named serves (AllZones); the
	// service drops the zones it deletes from it at once and has it
	// refreshed after its creates and adoptions.
	Inventory *inventory.Inventory
	// ViewIndex, if set, returns the index of a view's zones (nil when
	// the view has none), so that AllZones marks the zones of views
	// managed; Store's index is that of the zones addressed without a
	// view.
	ViewIndex func(view string) (Index, error)
	// Timeout is the control channel's timeout; the start-up reconciles
	// are bounded by four times it. Default 10 s.
	Timeout time.Duration
	// UpdateKey is the key zones accept dynamic updates from unless the
	// request names one (see AddZoneStatement).
	UpdateKey string
	// SendWithin bounds the time from recording an intent to sending its
	// control command; the command is not sent later. Default 10 s.
	SendWithin time.Duration
	// Expiry is how long named may execute a command after it was sent
	// (rndc.Client.Expiry; default 60 s). With SendWithin it sets an
	// intent's NotAfter.
	Expiry time.Duration
	// ClockSkew is added to NotAfter for the difference between this
	// host's clock and named's. Default 2 s.
	ClockSkew time.Duration
	// KeyDirs are further directories where named may keep DNSSEC keys of
	// zones (named's key-directory or directory, when a zone's own
	// configuration does not name one): a delete removes the zone's key
	// files there too. The zone directory is always searched.
	KeyDirs []string
	// DurableWait bounds how long a delete waits for named to confirm
	// that the removal is durable. Default 5 s.
	DurableWait time.Duration
	// History, if set, is the change history: every operation that
	// changed a zone appends its entry before it returns (history.go),
	// and Noticed records the changes made elsewhere.
	History *history.Log
	// ZoneCacheMaxAge is how long a zone's cached state answers zone
	// GETs (CachedZone, zonecache.go). Default DefaultZoneCacheMaxAge;
	// negative: every GET asks named.
	ZoneCacheMaxAge time.Duration
	// Logger receives one line per repair. Default: none.
	Logger *zap.Logger
	// Now returns the time (tests). Default time.Now.
	Now func() time.Time

	// Directory is the process's state of the zone directory Store
	// works on, shared by every Service of it (the start-up reconcile's
	// gate, named's boot time as last seen); nil: the service keeps its
	// own.
	Directory *Directory

	// WatchStatus, if set, is how WatchRestarts asks named for its
	// status (default Control.Status). A front end gives it a client of
	// its own that keeps no idle connection, so that the watch, which
	// asks every few seconds, never takes (and, when named hangs, closes)
	// an idle connection a request could have used.
	WatchStatus func(ctx context.Context) (*rndc.ServerStatus, error)

	// gaveUp holds, by zone, the time of each intent this process gave
	// up but could not mark done (see abandon).
	gaveUp sync.Map

	// notLoaded holds the managed primary zones the last full reconcile
	// found named not loading, and why (NotLoaded).
	notLoaded atomic.Pointer[[]Fix]

	catalogStart retryGate // ReconcileCatalogAtStart

	// own is the service's Directory when Directory is nil.
	own     *Directory
	ownOnce sync.Once

	all listing // AllZones's list of every zone, kept between requests (listing.go)
}

// directory is the service's Directory: Directory, else one of its own.
func (s *Service) directory() *Directory {
	if s.Directory != nil {
		return s.Directory
	}
	s.ownOnce.Do(func() { s.own = NewDirectory(s.Store.Dir(), nil) })
	return s.own
}

// NotLoaded returns the managed primary zones the last full Reconcile
// found named not loading, with why: readiness reports them.
func (s *Service) NotLoaded() []Fix {
	if p := s.notLoaded.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *zap.Logger {
	if s.Logger == nil {
		return zap.NewNop()
	}
	return s.Logger
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// newIntent fills an intent's times.
func (s *Service) newIntent(op, zone string) zonestore.Intent {
	now := s.now()
	window := orDefault(s.SendWithin, 10*time.Second) + orDefault(s.Expiry, rndc.DefaultExpiry) + orDefault(s.ClockSkew, 2*time.Second)
	return zonestore.Intent{Op: op, Name: zone, File: s.Store.FilePath(zone), Time: now, NotAfter: now.Add(window)}
}

// commandContext bounds the sending of an intent's commands (SendWithin
// after the intent was recorded).
func (s *Service) commandContext(ctx context.Context, in zonestore.Intent) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, in.Time.Add(orDefault(s.SendWithin, 10*time.Second)))
}

// Fingerprint identifies a create request: the same body sent again has
// the same fingerprint, so a retry finds the zone it made.
func Fingerprint(req *zonemodel.CreateZoneRequest) string { return req.Fingerprint() }

// WithKey returns the fingerprint of a create request fp sent with an
// idempotency key (keyID identifies the key and its sender): the zone's
// index entry then records which keyed request made it, so that a retry
// with the key finds its own zone (Created.Existed) and an identical
// request without it, or with another key, does not.
func WithKey(fp, keyID string) string {
	if fp == "" || keyID == "" {
		return fp
	}
	return fp + "." + keyID
}

// SameBody reports whether two fingerprints are of requests with the same
// body, whatever their idempotency keys.
func SameBody(a, b string) bool {
	a, _, _ = strings.Cut(a, ".")
	b, _, _ = strings.Cut(b, ".")
	return a != "" && a == b
}

// lock takes the zone's lock. Its release drops the zone's cached state
// (zoneChanged): whatever ran under the lock may have changed it.
func (s *Service) lock(ctx context.Context, zone string) (func(), error) {
	unlock, err := s.Store.Lock(ctx, zone)
	if err != nil {
		return nil, newErr(ErrBusy, zone, "", "waiting for the lock of zone "+zone, err)
	}
	return func() { s.zoneChanged(zone); unlock() }, nil
}

// abandon marks the zone's intent done, logging a failure (the intent then
// stays pending and is settled later, which is safe).
//
// Every caller knows that named has nothing of the intent (its command
// was never sent, was refused, or was undone): when the mark cannot be
// written, the intent is remembered as given up (gaveUp), so that this
// process settles it at once instead of waiting, as for a command whose
// outcome is unknown, until the intent's NotAfter.
func (s *Service) abandon(name string) {
	in, pending, _ := s.Store.PendingIntent(name)
	if err := s.Store.Complete(name, nil, false); err != nil {
		if pending {
			s.gaveUp.Store(name, in.Time)
		}
		s.log().Error("marking an undone intent done failed; it stays pending", zap.String("zone", name), zap.Error(err))
	}
}

// givenUp reports whether this process gave the pending intent in up
// (abandon) without being able to record it.
func (s *Service) givenUp(in zonestore.Intent) bool {
	t, ok := s.gaveUp.Load(in.Name)
	return ok && t.(time.Time).Equal(in.Time)
}

// waitGone waits until the zone's file does not exist (named removed it)
// or DurableWait passes, and reports whether it is gone.
func (s *Service) waitGone(ctx context.Context, zone string) bool {
	return s.waitFor(ctx, func() (bool, error) { return s.Store.HasFile(zone) })
}

// waitFor waits until exists reports false (named removed the file it
// looks for) or DurableWait passes, and reports whether it did.
func (s *Service) waitFor(ctx context.Context, exists func() (bool, error)) bool {
	deadline := time.Now().Add(orDefault(s.DurableWait, 5*time.Second))
	delay := 500 * time.Microsecond
	for {
		if ok, err := exists(); !ok && err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		delay = min(delay*2, 20*time.Millisecond)
	}
}

// clauseWord returns the first word of a clause's value, unquoted.
func clauseWord(zc *rndc.ZoneStatement, clause string) string {
	if zc == nil {
		return ""
	}
	v, ok := zc.Get(clause)
	if !ok || len(v) == 0 || v[0].Kind == rndc.ListTerm {
		return ""
	}
	return v[0].Text
}

// fileOf returns the zone's file as named reports it.
func fileOf(zc *rndc.ZoneStatement) string { return clauseWord(zc, "file") }

// keyDirOf returns the zone's key-directory as named reports it.
func keyDirOf(zc *rndc.ZoneStatement) string { return clauseWord(zc, "key-directory") }

// CheckHistory reports whether the change history can write (its
// history.Log.Check): nil without a history, or when its last write
// succeeded; the failure while its directory still takes no write.
func (s *Service) CheckHistory() error {
	if s.History == nil {
		return nil
	}
	return s.History.Check()
}
