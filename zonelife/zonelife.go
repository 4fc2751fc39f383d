// Package zonelife is the lifecycle of a zone managed through the API:
// create and delete, each made crash-safe by a durable write-ahead intent
// recorded before anything is touched, and the reconciler that completes
// or undoes, from what named reports, whatever a crash or an unanswered
// control command left half done. It knows no HTTP: it depends on small
// interfaces of the control channel (Control) and of the zone store
// (Store), and returns typed errors (*Error).
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
package zonelife

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Control is the part of named's control channel the lifecycle uses;
// *rndc.Client implements it. Errors are those of package rndc:
// rndc.IsNotFound, rndc.IsAlreadyExists and rndc.OutcomeUnknown classify
// them.
type Control interface {
	AddZone(ctx context.Context, zone, config string) (string, error)
	DelZone(ctx context.Context, zone string, clean bool) (string, error)
	ShowZoneConfig(ctx context.Context, zone string) (*rndc.ZoneConfig, error)
}

// Store is the part of the zone store the lifecycle uses;
// *zonestore.Store implements it.
type Store interface {
	Dir() string
	FilePath(zone string) string
	Lock(ctx context.Context, zone string) (func(), error)
	Get(zone string) (zonestore.Entry, bool, error)
	Put(e zonestore.Entry) error
	CreateFile(zone string, data []byte) (string, error)
	RemoveZoneFiles(zone string) ([]string, error)
	MoveAside(zone string) (string, error)
	ZoneFiles() ([]string, error)
	Begin(in zonestore.Intent) error
	Complete(zone string, put *zonestore.Entry, del bool) error
	Unindex(zone string) error
	Abandon(zone string) error
	PendingIntent(zone string) (zonestore.Intent, bool, error)
	PendingIntents() ([]zonestore.Intent, error)
	RepairIndex() (int64, error)
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

// Lifecycle creates and deletes zones. Set Store and Control; the other
// fields are optional. It is safe for concurrent use: operations on one
// zone are serialised by the store's zone lock.
type Lifecycle struct {
	Store   Store
	Control Control
	// Hook, if set, runs in create and delete (see Hook).
	Hook Hook
	// UpdateKey is the key zones accept dynamic updates from unless the
	// request names one (see zonestore.Zone.BINDConfig).
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
	// Logger receives one line per repair. Default: none.
	Logger *zap.Logger
	// Now returns the time (tests). Default time.Now.
	Now func() time.Time
}

func (l *Lifecycle) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Lifecycle) log() *zap.Logger {
	if l.Logger == nil {
		return zap.NewNop()
	}
	return l.Logger
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// newIntent fills an intent's times.
func (l *Lifecycle) newIntent(op, zone string) zonestore.Intent {
	now := l.now()
	window := orDefault(l.SendWithin, 10*time.Second) + orDefault(l.Expiry, rndc.DefaultExpiry) + orDefault(l.ClockSkew, 2*time.Second)
	return zonestore.Intent{Op: op, Name: zone, File: l.Store.FilePath(zone), Time: now, NotAfter: now.Add(window)}
}

// commandContext bounds the sending of an intent's commands (SendWithin
// after the intent was recorded).
func (l *Lifecycle) commandContext(ctx context.Context, in zonestore.Intent) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, in.Time.Add(orDefault(l.SendWithin, 10*time.Second)))
}

// Fingerprint identifies a create request: the same body sent again has
// the same fingerprint, so a retry finds the zone it made.
func Fingerprint(req *zonestore.CreateZoneRequest) string {
	b, err := json.Marshal(req)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// lock takes the zone's lock.
func (l *Lifecycle) lock(ctx context.Context, zone string) (func(), error) {
	unlock, err := l.Store.Lock(ctx, zone)
	if err != nil {
		return nil, newErr(ErrBusy, zone, "", "waiting for the lock of zone "+zone, err)
	}
	return unlock, nil
}

// Created describes a created zone.
type Created struct {
	// File is the zone's master file.
	File string
	// Details is named's answer to addzone.
	Details string
	// Existed is true when the zone was made earlier by a request with
	// the same fingerprint: this request is a retry and changed nothing.
	Existed bool
	// Settled is what settling an earlier pending intent for the zone did
	// ("" when there was none).
	Settled string
}

// keyDirClause is added to the addzone block of signed zones, so that
// named keeps their keys where a delete finds them and reports the
// directory in showzone.
func keyDirClause(dir string) string {
	return "key-directory " + rndc.QuoteString(dir) + "; "
}

// Create creates the zone z: see the package comment. fp is the request's
// Fingerprint ("" when not known: a retry then answers ErrExists).
func (l *Lifecycle) Create(ctx context.Context, z *zonestore.Zone, fp string) (*Created, error) {
	name := z.Name
	unlock, err := l.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	settled, err := l.settle(ctx, name)
	if err != nil {
		return nil, err
	}
	path := l.Store.FilePath(name)
	if e, found, err := l.Store.Get(name); err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	} else if found {
		if fp != "" && e.Fingerprint == fp {
			return &Created{File: path, Existed: true, Settled: settled}, nil
		}
		return nil, newErr(ErrExists, name, "", "zone "+name+" already exists", nil)
	}

	var data []byte
	if z.Type == zonestore.TypePrimary {
		if data, err = z.RenderFile(); err != nil {
			return nil, newErr(ErrInvalid, name, "", "rendering zone "+name, err)
		}
	}
	cfg := z.BINDConfig(path, l.UpdateKey)
	if strings.Contains(cfg, "dnssec-policy ") || strings.Contains(cfg, "inline-signing yes") {
		cfg = "{ " + keyDirClause(l.Store.Dir()) + strings.TrimPrefix(cfg, "{ ")
	}

	in := l.newIntent(zonestore.IntentCreate, name)
	in.Type, in.Fingerprint = z.Type, fp
	cctx, cancel := l.commandContext(ctx, in)
	defer cancel()

	// The intent must be durable before named is asked to add the zone;
	// the file, which only this process knows of until then, may be
	// written meanwhile: both fsyncs run at once. (A crash that leaves the
	// file without the intent leaves a file no zone uses, which the
	// reconciler moves aside.)
	begun := make(chan error, 1)
	go func() { begun <- l.Store.Begin(in) }()
	var fileErr error
	wrote := false
	if z.Type == zonestore.TypePrimary {
		fileErr = l.createFile(cctx, name, data)
		wrote = fileErr == nil
	} else if _, err := os.Lstat(path); err == nil {
		// A file a secondary would use: whose is it? Ask named.
		fileErr = l.clearStaleFile(cctx, name, path)
	}
	if err := <-begun; err != nil {
		if wrote {
			removeFile(path)
		}
		return nil, newErr(ErrStorage, name, "", "recording the intent to create zone "+name, err)
	}
	if fileErr != nil {
		l.abandon(name)
		return nil, fileErr
	}

	text, err := l.Control.AddZone(cctx, name, cfg)
	switch {
	case err == nil:
	case rndc.OutcomeUnknown(err):
		return nil, newErr(ErrOutcomeUnknown, name, "addzone", "named did not answer addzone for zone "+name+", so whether it added the zone is unknown", err)
	case rndc.IsAlreadyExists(err):
		// Ours if it uses our file (our command executed twice, say);
		// else a zone not created through this API.
		if zc, serr := l.Control.ShowZoneConfig(cctx, name); serr == nil && fileOf(zc) == path {
			text = ""
			break
		}
		if z.Type == zonestore.TypePrimary {
			l.removeIfUnused(cctx, name, path)
		}
		l.abandon(name)
		return nil, newErr(ErrExists, name, "addzone", "zone "+name+" already exists in named (not created through this API)", err)
	default:
		// named refused it, or it was never sent: named does not use the
		// file written above.
		if z.Type == zonestore.TypePrimary {
			removeFile(path)
		}
		l.abandon(name)
		return nil, newErr(ErrControl, name, "addzone", "", err)
	}

	if l.Hook != nil {
		if herr := l.Hook.ZoneCreated(cctx, name, z.Type); herr != nil {
			l.undoCreate(ctx, name, path)
			return nil, newErr(ErrHook, name, "", "zone "+name+" was not created", herr)
		}
	}
	if err := l.Store.Complete(name, &zonestore.Entry{Name: name, Type: z.Type, Created: l.now(), Fingerprint: fp}, false); err != nil {
		l.undoCreate(ctx, name, path)
		return nil, newErr(ErrStorage, name, "", "recording zone "+name+" in the index", err)
	}
	return &Created{File: path, Details: text, Settled: settled}, nil
}

// createFile writes the zone's file exclusively. A file already there that
// no zone of named uses (named says so) is moved aside first.
func (l *Lifecycle) createFile(ctx context.Context, name string, data []byte) error {
	_, err := l.Store.CreateFile(name, data)
	if errors.Is(err, zonestore.ErrExists) {
		if err := l.clearStaleFile(ctx, name, l.Store.FilePath(name)); err != nil {
			return err
		}
		_, err = l.Store.CreateFile(name, data)
	}
	if err != nil {
		return newErr(ErrStorage, name, "", "writing the file of zone "+name, err)
	}
	return nil
}

// clearStaleFile handles a zone file that exists although neither the
// index nor a pending intent knows the zone: when named serves the zone
// with it, the zone is adopted into the index and ErrExists returned;
// when named does not know the zone, the file is moved aside.
func (l *Lifecycle) clearStaleFile(ctx context.Context, name, path string) error {
	zc, err := l.Control.ShowZoneConfig(ctx, name)
	switch {
	case err == nil:
		if fileOf(zc) == path {
			if perr := l.Store.Put(zonestore.Entry{Name: name, Type: zc.Type(), Created: l.now()}); perr != nil {
				return newErr(ErrStorage, name, "", "adopting zone "+name, perr)
			}
			l.log().Warn("adopted a zone named serves with its file but the index did not know", zap.String("zone", name), zap.String("file", path))
			return newErr(ErrExists, name, "", "zone "+name+" already exists (named serves it with "+path+"; it is now listed)", nil)
		}
		return newErr(ErrExists, name, "", "zone "+name+" already exists in named (not created through this API)", nil)
	case rndc.IsNotFound(err):
		moved, merr := l.Store.MoveAside(name)
		if merr != nil {
			return newErr(ErrStorage, name, "", "moving aside the unused file "+path, merr)
		}
		l.log().Warn("moved aside a zone file no zone uses", zap.String("zone", name), zap.String("file", path), zap.String("moved_to", moved))
		return nil
	case rndc.OutcomeUnknown(err):
		return newErr(ErrOutcomeUnknown, name, "showzone", "asking named whether it uses "+path, err)
	default:
		return newErr(ErrControl, name, "showzone", "", err)
	}
}

// undoCreate removes a zone named added, after a failure that followed
// addzone. When named's removal cannot be confirmed, the intent stays
// pending for the reconciler.
func (l *Lifecycle) undoCreate(ctx context.Context, name, path string) {
	ctx = context.WithoutCancel(ctx)
	_, err := l.Control.DelZone(ctx, name, true)
	if err != nil && !rndc.IsNotFound(err) {
		l.log().Error("undoing a create failed; the zone's intent stays pending", zap.String("zone", name), zap.Error(err))
		return
	}
	if !l.waitGone(ctx, path) {
		l.log().Error("undoing a create: named has not removed the file; the zone's intent stays pending", zap.String("zone", name))
		return
	}
	l.abandon(name)
}

// abandon marks the zone's intent done, logging a failure (the intent then
// stays pending and is settled later, which is safe).
func (l *Lifecycle) abandon(name string) {
	if err := l.Store.Abandon(name); err != nil {
		l.log().Error("marking an undone intent done failed; it stays pending", zap.String("zone", name), zap.Error(err))
	}
}

// Deleted describes a deleted zone.
type Deleted struct {
	// Details is named's answer to delzone.
	Details string
	// Managed is true for a zone created through the API (its files and
	// index entry were removed too).
	Managed bool
	// Durable is false when named has not confirmed (within DurableWait)
	// that the removal survives its restart; the delete's intent then
	// stays pending and is completed later.
	Durable bool
	// Removed lists the files removed.
	Removed []string
	// Settled is what settling an earlier pending intent for the zone did.
	Settled string
}

// Delete deletes the zone: see the package comment. A zone not created
// through the API is only deleted from named (`delzone` without -clean;
// its files are left alone).
func (l *Lifecycle) Delete(ctx context.Context, name string) (*Deleted, error) {
	unlock, err := l.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	pending, _, _ := l.Store.PendingIntent(name)
	settled, err := l.settle(ctx, name)
	if err != nil {
		return nil, err
	}
	if pending.Op == zonestore.IntentDelete && settled != "" {
		// A retry of a delete whose outcome was unknown: now done.
		return &Deleted{Managed: true, Durable: true, Settled: settled}, nil
	}
	_, managed, err := l.Store.Get(name)
	if err != nil {
		return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
	}
	if !managed {
		text, err := l.Control.DelZone(ctx, name, false)
		if err != nil {
			return nil, l.commandErr(name, "delzone", err)
		}
		return &Deleted{Details: text, Durable: true, Settled: settled}, nil
	}

	// Where named keeps the zone's keys: only named knows, and only
	// until the zone is deleted.
	keyDir := ""
	if zc, err := l.Control.ShowZoneConfig(ctx, name); err == nil {
		keyDir = keyDirOf(zc)
	}
	in := l.newIntent(zonestore.IntentDelete, name)
	in.KeyDir = keyDir
	path := in.File
	if err := l.Store.Begin(in); err != nil {
		return nil, newErr(ErrStorage, name, "", "recording the intent to delete zone "+name, err)
	}
	cctx, cancel := l.commandContext(ctx, in)
	defer cancel()
	_, statErr := os.Lstat(path)
	hadFile := statErr == nil
	text, err := l.Control.DelZone(cctx, name, true)
	switch {
	case err == nil:
	case rndc.IsNotFound(err):
		// named no longer has it: nothing of named to wait for.
		hadFile = false
	case rndc.OutcomeUnknown(err):
		return nil, newErr(ErrOutcomeUnknown, name, "delzone", "named did not answer delzone for zone "+name+", so whether it deleted the zone is unknown", err)
	default:
		l.abandon(name)
		return nil, l.commandErr(name, "delzone", err)
	}
	durable := true
	if hadFile {
		durable = l.waitGone(ctx, path)
	} else if err == nil {
		// A secondary never transferred has no file whose removal would
		// tell: named's removal cannot be confirmed.
		durable = false
	}
	if l.Hook != nil {
		if herr := l.Hook.ZoneDeleted(ctx, name); herr != nil {
			_ = l.Store.Unindex(name)
			return nil, newErr(ErrHook, name, "", "zone "+name+" was deleted from named but the delete is not complete", herr)
		}
	}
	if !durable {
		if err := l.Store.Unindex(name); err != nil {
			return nil, newErr(ErrStorage, name, "", "removing zone "+name+" from the index", err)
		}
		return &Deleted{Details: text, Managed: true, Durable: false, Settled: settled}, nil
	}
	removed := l.removeAll(name, in.KeyDir)
	if err := l.Store.Complete(name, nil, true); err != nil {
		return nil, newErr(ErrStorage, name, "", "removing zone "+name+" from the index", err)
	}
	return &Deleted{Details: text, Managed: true, Durable: true, Removed: removed, Settled: settled}, nil
}

// commandErr classifies a control command's failure.
func (l *Lifecycle) commandErr(name, command string, err error) *Error {
	switch {
	case rndc.OutcomeUnknown(err):
		return newErr(ErrOutcomeUnknown, name, command, "named did not answer "+command+" for zone "+name+", so its outcome is unknown", err)
	case rndc.IsNotFound(err):
		return newErr(ErrNotFound, name, command, "zone "+name+" not found", err)
	default:
		return newErr(ErrControl, name, command, "", err)
	}
}

// removeAll removes what a deleted zone left: its files in the zone
// directory and its DNSSEC keys in its key directory, the zone directory
// and KeyDirs.
func (l *Lifecycle) removeAll(name, keyDir string) []string {
	removed, err := l.Store.RemoveZoneFiles(name)
	if err != nil {
		l.log().Error("removing zone files", zap.String("zone", name), zap.Error(err))
	}
	seen := map[string]bool{filepath.Clean(l.Store.Dir()): true}
	for _, d := range append([]string{keyDir}, l.KeyDirs...) {
		if d == "" || seen[filepath.Clean(d)] {
			continue
		}
		seen[filepath.Clean(d)] = true
		r, err := zonestore.RemoveKeyFiles(d, name)
		if err != nil {
			l.log().Error("removing key files", zap.String("zone", name), zap.String("dir", d), zap.Error(err))
		}
		removed = append(removed, r...)
	}
	return removed
}

// waitGone waits until path does not exist (named removed it) or
// DurableWait passes, and reports whether it is gone.
func (l *Lifecycle) waitGone(ctx context.Context, path string) bool {
	deadline := time.Now().Add(orDefault(l.DurableWait, 5*time.Second))
	delay := 500 * time.Microsecond
	for {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
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

// removeIfUnused removes path unless named serves the zone with it (or
// cannot be asked).
func (l *Lifecycle) removeIfUnused(ctx context.Context, name, path string) bool {
	zc, err := l.Control.ShowZoneConfig(ctx, name)
	if err == nil && fileOf(zc) == path || err != nil && !rndc.IsNotFound(err) {
		return false
	}
	return removeFile(path)
}

// removeFile removes path and its journal; it reports whether path is gone.
func removeFile(path string) bool {
	_ = os.Remove(path + ".jnl")
	err := os.Remove(path)
	if err == nil {
		_ = syncDir(filepath.Dir(path))
	}
	return err == nil || errors.Is(err, fs.ErrNotExist)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// clauseWord returns the first word of a clause's value, unquoted.
func clauseWord(zc *rndc.ZoneConfig, clause string) string {
	if zc == nil {
		return ""
	}
	v, ok := zc.Get(clause)
	if !ok {
		return ""
	}
	w, err := rndc.Words(v)
	if err != nil || len(w) == 0 {
		return ""
	}
	return w[0]
}

// fileOf returns the zone's file as named reports it.
func fileOf(zc *rndc.ZoneConfig) string { return clauseWord(zc, "file") }

// keyDirOf returns the zone's key-directory as named reports it.
func keyDirOf(zc *rndc.ZoneConfig) string { return clauseWord(zc, "key-directory") }
