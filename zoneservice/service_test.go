package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// fakeNamed plays named's control channel below the lifecycle: zones it
// serves and their files, and knobs for failures.
type fakeNamed struct {
	// Control answers the commands the lifecycle does not use (nil:
	// they panic).
	Control
	mu    sync.Mutex
	zones map[string]string // zone -> file

	addErr error // returned by AddZone
	// addUnknown makes AddZone fail with an unknown outcome; with
	// addExecutes it adds the zone anyway (named executed it late).
	addUnknown, addExecutes bool
	delErr                  error
	delUnknown, delExecutes bool
	// keepFile makes delzone -clean leave the file (named's removal not
	// yet durable).
	keepFile bool
	showErr  error
	calls    []string
	// notLoaded are zones named has but does not load.
	notLoaded map[string]bool
	// fromConf are zones of named.conf (zonestatus: not reconfigurable
	// via modzone); the others are of the new-zone database.
	fromConf map[string]bool
	// deleted holds the zones delzone removed.
	deleted sync.Map
}

func newFakeNamed() *fakeNamed {
	return &fakeNamed{zones: map[string]string{}, notLoaded: map[string]bool{}, fromConf: map[string]bool{}}
}

var errUnknown = fmt.Errorf("rndc: i/o timeout (%w)", rndc.ErrOutcomeUnknown)

func notFound(cmd string) error { return &rndc.Error{Command: cmd, Err: "not found", Result: 23} }

func (f *fakeNamed) AddZone(ctx context.Context, zs *rndc.ZoneStatement) (string, error) {
	zone := zs.Name
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "addzone "+zone)
	if f.addErr != nil {
		return "", f.addErr
	}
	if _, ok := f.zones[zone]; ok {
		return "", &rndc.Error{Command: "addzone", Err: "already exists", Result: 18}
	}
	// What named would read: the rendered statement.
	zc, err := rndc.ParseZoneStatement(zs.String())
	if err != nil {
		return "", err
	}
	if f.addUnknown {
		if f.addExecutes {
			f.zones[zone] = fileOf(zc)
		}
		return "", errUnknown
	}
	f.zones[zone] = fileOf(zc)
	return "", nil
}

func (f *fakeNamed) DelZone(ctx context.Context, zone string, clean bool) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf("delzone %s clean=%v", zone, clean))
	if f.delErr != nil {
		return "", f.delErr
	}
	file, ok := f.zones[zone]
	if !ok {
		return "", notFound("delzone")
	}
	if f.delUnknown && !f.delExecutes {
		return "", errUnknown
	}
	delete(f.zones, zone)
	f.deleted.Store(zone, true)
	if clean && !f.keepFile {
		os.Remove(file)
	}
	if f.delUnknown {
		return "", errUnknown
	}
	return "zone deleted", nil
}

func (f *fakeNamed) ShowZoneStatement(ctx context.Context, zone string) (*rndc.ZoneStatement, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.showErr != nil {
		return nil, f.showErr
	}
	file, ok := f.zones[zone]
	if !ok {
		return nil, notFound("showzone")
	}
	zs := &rndc.ZoneStatement{Name: zone}
	zs.Add("type", rndc.Word("primary"))
	zs.Add("file", rndc.Quoted(file))
	return zs, nil
}

// ZoneStatus answers for a zone the fake serves: loaded unless it is in
// notLoaded.
func (f *fakeNamed) ZoneStatus(ctx context.Context, zone string) (*rndc.ZoneStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.zones[zone]; !ok {
		return nil, notFound("zonestatus")
	}
	if f.notLoaded[zone] {
		return nil, &rndc.Error{Command: "zonestatus", Err: "zone not loaded", Result: 1}
	}
	return &rndc.ZoneStatus{Name: zone, Type: "primary", Loaded: true, Reconfigurable: !f.fromConf[zone]}, nil
}

// Reload loads the zone unless its journal is still there.
func (f *fakeNamed) Reload(ctx context.Context, zone string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.zones[zone]
	if !ok {
		return "", notFound("reload")
	}
	if _, err := os.Lstat(file + ".jnl"); err != nil {
		delete(f.notLoaded, zone)
	}
	return "zone reload successful", nil
}

func (f *fakeNamed) has(zone string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.zones[zone]
	return ok
}

// faultyStore is the real store with injectable failures.
type faultyStore struct {
	*zonestore.Store
	failBegin, failComplete int // fail the next n calls
	failCreateFile          int
}

func (s *faultyStore) CreateFile(zone string, data []byte) (string, error) {
	if s.failCreateFile > 0 {
		s.failCreateFile--
		return "", fmt.Errorf("writing zone file: %w", syscall.ENOSPC)
	}
	return s.Store.CreateFile(zone, data)
}

func (s *faultyStore) Begin(in zonestore.Intent) error {
	if s.failBegin > 0 {
		s.failBegin--
		return errors.New("no space left on device")
	}
	return s.Store.Begin(in)
}

func (s *faultyStore) Complete(zone string, put *zonestore.Entry, del bool) error {
	if s.failComplete > 0 {
		s.failComplete--
		return errors.New("no space left on device")
	}
	return s.Store.Complete(zone, put, del)
}

func (s *faultyStore) CompleteCreate(zone string, put *zonestore.Entry) error {
	if s.failComplete > 0 {
		s.failComplete--
		return errors.New("no space left on device")
	}
	return s.Store.CompleteCreate(zone, put)
}

type hook struct {
	created, deleted []string
	err              error
}

func (h *hook) ZoneCreated(ctx context.Context, zone, typ string) error {
	h.created = append(h.created, zone)
	return h.err
}

func (h *hook) ZoneDeleted(ctx context.Context, zone string) error {
	h.deleted = append(h.deleted, zone)
	return h.err
}

type rig struct {
	t     *testing.T
	dir   string
	store *faultyStore
	named *fakeNamed
	s     *Service
	now   time.Time
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := t.TempDir()
	s, err := zonestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, dir: dir, store: &faultyStore{Store: s}, named: newFakeNamed(), now: time.Now()}
	r.s = &Service{Store: r.store, Control: r.named, UpdateKey: "k", DurableWait: 50 * time.Millisecond,
		SendWithin: time.Second, Expiry: time.Second, ClockSkew: time.Second, Now: func() time.Time { return r.now }}
	return r
}

var testNow = time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)

func zoneReq(name string) *zonemodel.CreateZoneRequest {
	serial := uint32(2026112601)
	return &zonemodel.CreateZoneRequest{ZoneName: name, ZoneType: "primary", ZoneConfig: &zonemodel.ZoneConfig{
		TTL: 300, SOA: &zonemodel.SOA{PrimaryNS: "ns1." + name + ".", AdminEmail: "admin@" + name, Serial: &serial},
		NameServers: []string{"ns1." + name + "."}, NameServerIPs: map[string]string{"ns1." + name + ".": "192.0.2.1"},
	}}
}

func (r *rig) create(name string) (*Created, error) {
	req := zoneReq(name)
	z, err := req.Normalize(testNow)
	if err != nil {
		r.t.Fatal(err)
	}
	return r.s.Create(context.Background(), z, Fingerprint(req))
}

func (r *rig) file(name string) string { return filepath.Join(r.dir, name+".zone") }

func (r *rig) exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// state checks the invariant: index, named and files agree on zone name,
// and no intent is pending unless pending is true.
func (r *rig) state(name string, want bool, pending bool) {
	r.t.Helper()
	_, indexed, err := r.store.Get(name)
	if err != nil {
		r.t.Fatal(err)
	}
	if indexed != want || r.named.has(name) != want || r.exists(r.file(name)) != want {
		r.t.Errorf("%s: indexed %v, named %v, file %v; want all %v", name, indexed, r.named.has(name), r.exists(r.file(name)), want)
	}
	_, p, _ := r.store.PendingIntent(name)
	if p != pending {
		r.t.Errorf("%s: intent pending %v, want %v", name, p, pending)
	}
}

func is(t *testing.T, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("err = %v, want %v", err, kind)
	}
}

func TestCreateAndRetry(t *testing.T) {
	r := newRig(t)
	c, err := r.create("a.test")
	if err != nil || c.Existed || c.File != r.file("a.test") {
		t.Fatalf("create = %+v, %v", c, err)
	}
	r.state("a.test", true, false)
	// The same request again: the zone it made, not a conflict.
	c, err = r.create("a.test")
	if err != nil || !c.Existed {
		t.Fatalf("retry = %+v, %v", c, err)
	}
	// Another request for the same name: a conflict.
	other := zoneReq("a.test")
	other.ZoneConfig.TTL = 600
	z, _ := other.Normalize(testNow)
	_, err = r.s.Create(context.Background(), z, Fingerprint(other))
	is(t, err, ErrExists)
}

func TestCreateBeginFails(t *testing.T) {
	r := newRig(t)
	r.store.failBegin = 1
	_, err := r.create("a.test")
	is(t, err, ErrStorage)
	r.state("a.test", false, false)
	if len(r.named.calls) != 0 {
		t.Errorf("named was asked: %v", r.named.calls)
	}
}

func TestCreateAddzoneRefused(t *testing.T) {
	r := newRig(t)
	r.named.addErr = &rndc.Error{Command: "addzone", Err: "bad zone"}
	_, err := r.create("a.test")
	is(t, err, ErrControl)
	var re *rndc.Error
	if !errors.As(err, &re) || re.Err != "bad zone" {
		t.Errorf("BIND's error lost: %v", err)
	}
	r.state("a.test", false, false)
}

func TestCreateAddzoneNotSent(t *testing.T) {
	r := newRig(t)
	r.named.addErr = errors.New("rndc addzone: connecting to 127.0.0.1:953: connection refused")
	_, err := r.create("a.test")
	is(t, err, ErrControl)
	r.state("a.test", false, false)
}

// TestCreateUnknownNotExecuted: a timed-out addzone that named never
// executes is not rolled back until named can no longer execute it.
func TestCreateUnknownNotExecuted(t *testing.T) {
	r := newRig(t)
	r.named.addUnknown = true
	_, err := r.create("a.test")
	is(t, err, ErrOutcomeUnknown)
	if !r.exists(r.file("a.test")) {
		t.Fatal("the file was removed although named may still add the zone")
	}
	if _, p, _ := r.store.PendingIntent("a.test"); !p {
		t.Fatal("no pending intent")
	}
	// Still within the command's expiry: still unknown.
	r.named.addUnknown = false
	_, err = r.create("a.test")
	is(t, err, ErrOutcomeUnknown)
	// After it: named reports no zone, which is final.
	r.now = r.now.Add(time.Minute)
	if act, err := r.s.Settle(context.Background(), "a.test"); err != nil || act != ActionRolledBackCreate {
		t.Fatalf("settle = %q, %v", act, err)
	}
	r.state("a.test", false, false)
	if _, err := r.create("a.test"); err != nil {
		t.Fatalf("create after settling: %v", err)
	}
	r.state("a.test", true, false)
}

// TestCreateUnknownExecuted is defect 2 of issue 10 at the unit level: a
// timed-out addzone that named executes later must not be rolled back, and
// a retry of the same create finds the zone it made.
func TestCreateUnknownExecuted(t *testing.T) {
	r := newRig(t)
	r.named.addUnknown, r.named.addExecutes = true, true
	_, err := r.create("a.test")
	is(t, err, ErrOutcomeUnknown)
	r.named.addUnknown, r.named.addExecutes = false, false
	c, err := r.create("a.test")
	if err != nil || !c.Existed || c.Settled != ActionCompletedCreate {
		t.Fatalf("retry = %+v, %v", c, err)
	}
	r.state("a.test", true, false)
}

func TestCreateForeignZone(t *testing.T) {
	r := newRig(t)
	r.named.zones["a.test"] = "/etc/bind/db.a.test"
	_, err := r.create("a.test")
	is(t, err, ErrExists)
	if r.exists(r.file("a.test")) {
		t.Error("our file was left behind")
	}
	if _, p, _ := r.store.PendingIntent("a.test"); p {
		t.Error("intent left pending")
	}
	if r.named.zones["a.test"] != "/etc/bind/db.a.test" {
		t.Error("the foreign zone was touched")
	}
}

func TestCreateIndexFails(t *testing.T) {
	r := newRig(t)
	r.store.failComplete = 1
	_, err := r.create("a.test")
	is(t, err, ErrStorage)
	r.state("a.test", false, false)
	// And when the undo cannot be recorded either, the intent stays
	// pending and is settled later.
	r.store.failComplete = 2
	_, err = r.create("b.test")
	is(t, err, ErrStorage)
	if r.named.has("b.test") {
		t.Error("named still serves the zone")
	}
	if _, p, _ := r.store.PendingIntent("b.test"); !p {
		t.Fatal("intent not pending")
	}
	r.now = r.now.Add(time.Minute)
	if act, err := r.s.Settle(context.Background(), "b.test"); err != nil || act != ActionRolledBackCreate {
		t.Fatalf("settle = %q, %v", act, err)
	}
	r.state("b.test", false, false)
}

func TestCreateHookFails(t *testing.T) {
	r := newRig(t)
	h := &hook{err: errors.New("catalog update refused")}
	r.s.Hook = h
	_, err := r.create("a.test")
	is(t, err, ErrHook)
	r.state("a.test", false, false)
	// The undo also undoes the hook's step, which may have been done with
	// its answer lost.
	if len(h.deleted) != 1 {
		t.Errorf("hook delete calls after the undo: %v", h.deleted)
	}
	h.err = nil
	if _, err := r.create("a.test"); err != nil {
		t.Fatal(err)
	}
	if len(h.created) != 2 {
		t.Errorf("hook calls: %v", h.created)
	}
	if _, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(h.deleted) != 2 {
		t.Errorf("hook delete calls: %v", h.deleted)
	}
}

// TestStaleFiles is defect 1 of issue 10 at the unit level: a file left by
// an interrupted create no longer blocks the name.
func TestStaleFiles(t *testing.T) {
	r := newRig(t)
	// A file named does not serve: moved aside, the create succeeds.
	os.WriteFile(r.file("a.test"), []byte("stale"), 0o644)
	if _, err := r.create("a.test"); err != nil {
		t.Fatalf("create over a stale file: %v", err)
	}
	r.state("a.test", true, false)
	moved, _ := filepath.Glob(filepath.Join(r.dir, ".zoneapi", "orphaned", "a.test.zone.*"))
	if len(moved) != 1 {
		t.Errorf("stale file not kept aside: %v", moved)
	}
	// A zone named serves with our file that the index lost: adopted,
	// then deletable.
	os.WriteFile(r.file("b.test"), []byte("served"), 0o644)
	r.named.zones["b.test"] = r.file("b.test")
	_, err := r.create("b.test")
	is(t, err, ErrExists)
	if _, ok, _ := r.store.Get("b.test"); !ok {
		t.Fatal("not adopted")
	}
	d, err := r.s.Delete(context.Background(), "b.test", DeleteOptions{})
	if err != nil || !d.Durable {
		t.Fatalf("delete = %+v, %v", d, err)
	}
	r.state("b.test", false, false)
}

func TestDelete(t *testing.T) {
	r := newRig(t)
	keyDir := t.TempDir()
	r.s.KeyDirs = []string{keyDir}
	if _, err := r.create("a.test"); err != nil {
		t.Fatal(err)
	}
	keys := []string{
		filepath.Join(r.dir, "Ka.test.+013+12345.key"),
		filepath.Join(keyDir, "Ka.test.+013+12345.private"),
		filepath.Join(keyDir, "Ka.test.+013+54321.state"),
	}
	other := filepath.Join(keyDir, "Kb.a.test.+013+12345.key")
	for _, k := range append(keys, other) {
		os.WriteFile(k, nil, 0o600)
	}
	d, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	if err != nil || !d.Durable || !d.Managed {
		t.Fatalf("delete = %+v, %v", d, err)
	}
	r.state("a.test", false, false)
	for _, k := range keys {
		if r.exists(k) {
			t.Errorf("key file %s left", k)
		}
	}
	if !r.exists(other) {
		t.Error("another zone's key removed")
	}
	if r.named.calls[len(r.named.calls)-1] != "delzone a.test clean=true" {
		t.Errorf("calls %v", r.named.calls)
	}
	_, err = r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	is(t, err, ErrNotFound)
}

func TestDeleteNotManaged(t *testing.T) {
	r := newRig(t)
	r.named.zones["conf.test"] = r.file("conf.test")
	os.WriteFile(r.file("conf.test"), []byte("x"), 0o644)
	_, err := r.s.Delete(context.Background(), "conf.test", DeleteOptions{})
	kind(t, err, ErrUnmanaged)
	if len(r.named.calls) != 0 || !r.named.has("conf.test") {
		t.Fatalf("an unconfirmed delete of an unmanaged zone did %v", r.named.calls)
	}
	d, err := r.s.Delete(context.Background(), "conf.test", DeleteOptions{Unmanaged: true})
	if err != nil || d.Managed {
		t.Fatalf("delete = %+v, %v", d, err)
	}
	if !r.exists(r.file("conf.test")) {
		t.Error("the file of a zone not created through the API was removed")
	}
	if r.named.calls[0] != "delzone conf.test clean=false" {
		t.Errorf("calls %v", r.named.calls)
	}
}

// A zone of named.conf is never deleted: delzone cannot make it stay
// deleted.
func TestDeleteNamedConfRefused(t *testing.T) {
	r := newRig(t)
	r.named.zones["conf.test"] = r.file("conf.test")
	r.named.fromConf["conf.test"] = true
	_, err := r.s.Delete(context.Background(), "conf.test", DeleteOptions{Unmanaged: true})
	kind(t, err, ErrNamedConf)
	if len(r.named.calls) != 0 || !r.named.has("conf.test") {
		t.Fatalf("a delete of a named.conf zone did %v", r.named.calls)
	}
}

func TestDeleteRefused(t *testing.T) {
	r := newRig(t)
	r.create("a.test")
	r.named.delErr = &rndc.Error{Command: "delzone", Err: "permission denied"}
	_, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	is(t, err, ErrControl)
	r.state("a.test", true, false)
}

// TestDeleteUnknown is defect 4 of issue 10 at the unit level: a delete
// interrupted after delzone is finished later, never left half done.
func TestDeleteUnknown(t *testing.T) {
	r := newRig(t)
	r.create("a.test")
	r.named.delUnknown, r.named.delExecutes = true, true
	_, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	is(t, err, ErrOutcomeUnknown)
	r.named.delUnknown, r.named.delExecutes = false, false
	d, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	if err != nil || d.Settled != ActionCompletedDelete {
		t.Fatalf("retry = %+v, %v", d, err)
	}
	r.state("a.test", false, false)

	// Not executed: the retry deletes it.
	r.create("b.test")
	r.named.delUnknown = true
	_, err = r.s.Delete(context.Background(), "b.test", DeleteOptions{})
	is(t, err, ErrOutcomeUnknown)
	r.named.delUnknown = false
	if _, err := r.s.Delete(context.Background(), "b.test", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.state("b.test", false, false)
}

// TestDeleteNotDurable is defect 5 at the unit level: while named has not
// made the removal durable (its file is still there), the delete is not
// acknowledged as done.
func TestDeleteNotDurable(t *testing.T) {
	r := newRig(t)
	r.create("a.test")
	r.named.keepFile = true
	d, err := r.s.Delete(context.Background(), "a.test", DeleteOptions{})
	if err != nil || d.Durable {
		t.Fatalf("delete = %+v, %v", d, err)
	}
	if _, ok, _ := r.store.Get("a.test"); ok {
		t.Error("still listed")
	}
	if !r.exists(r.file("a.test")) {
		t.Error("the file was removed before named confirmed")
	}
	if _, p, _ := r.store.PendingIntent("a.test"); !p {
		t.Fatal("intent not pending")
	}
	// named removes the file: a reconcile completes the delete.
	os.Remove(r.file("a.test"))
	rep, err := r.s.Reconcile(context.Background(), true)
	if err != nil || len(rep.Fixed) != 1 || rep.Fixed[0].Action != ActionCompletedDelete {
		t.Fatalf("reconcile = %+v, %v", rep, err)
	}
	r.state("a.test", false, false)
}

func TestSettleCannotAsk(t *testing.T) {
	r := newRig(t)
	r.named.addUnknown = true
	r.create("a.test")
	r.named.addUnknown = false
	r.named.showErr = fmt.Errorf("rndc showzone: connecting: connection refused")
	r.now = r.now.Add(time.Hour)
	_, err := r.create("a.test")
	is(t, err, ErrOutcomeUnknown)
	if !r.exists(r.file("a.test")) {
		t.Error("file removed without asking named")
	}
}

func TestReconcile(t *testing.T) {
	r := newRig(t)
	// A zone named serves with our file, unknown to the index.
	os.WriteFile(r.file("adopt.test"), []byte("x"), 0o644)
	r.named.zones["adopt.test"] = r.file("adopt.test")
	// A file no zone uses.
	os.WriteFile(r.file("orphan.test"), []byte("x"), 0o644)
	// A zone of named.conf with a file elsewhere: untouched.
	r.named.zones["conf.test"] = "/etc/bind/db.conf"
	// An interrupted create named executed.
	r.named.addUnknown, r.named.addExecutes = true, true
	r.create("done.test")
	r.named.addUnknown, r.named.addExecutes = false, false
	// A torn index line.
	f, _ := os.OpenFile(filepath.Join(r.dir, ".zoneapi", "index.log"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"op":"put","name":"ghost.test","type":"primary"}`)
	f.Close()

	rep, err := r.s.Reconcile(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, fx := range rep.Fixed {
		got[fx.Zone] = fx.Action
	}
	want := map[string]string{"": ActionDiscardedTornIndex, "adopt.test": ActionAdopted, "orphan.test": ActionMovedAside, "done.test": ActionCompletedCreate}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fixed %v, want %v", got, want)
	}
	if len(rep.Problems) != 0 || len(rep.Pending) != 0 {
		t.Errorf("report %+v", rep)
	}
	r.state("adopt.test", true, false)
	r.state("done.test", true, false)
	if r.exists(r.file("orphan.test")) {
		t.Error("orphan file still there")
	}
	if _, ok, _ := r.store.Get("ghost.test"); ok {
		t.Error("ghost listed")
	}
	// A second reconcile finds nothing to do.
	rep, _ = r.s.Reconcile(context.Background(), true)
	if len(rep.Fixed)+len(rep.Problems)+len(rep.Pending) != 0 {
		t.Errorf("second reconcile: %+v", rep)
	}
	// An indexed zone named lost is reported, not hidden.
	delete(r.named.zones, "adopt.test")
	rep, _ = r.s.Reconcile(context.Background(), true)
	if len(rep.Problems) != 1 || rep.Problems[0].Zone != "adopt.test" {
		t.Errorf("problems %+v", rep.Problems)
	}
}

func TestSignedZoneGetsKeyDirectory(t *testing.T) {
	r := newRig(t)
	req := zoneReq("s.test")
	req.ZoneConfig.DNSSECPolicy = "default"
	z, err := req.Normalize(testNow)
	if err != nil {
		t.Fatal(err)
	}
	var cfg string
	r.s.Control = &captureControl{fakeNamed: r.named, cfg: &cfg}
	if _, err := r.s.Create(context.Background(), z, Fingerprint(req)); err != nil {
		t.Fatal(err)
	}
	zc, err := rndc.ParseZoneStatement(`zone "s.test" ` + cfg)
	if err != nil {
		t.Fatal(err)
	}
	if keyDirOf(zc) != r.dir {
		t.Errorf("key-directory %q in %s", keyDirOf(zc), cfg)
	}
}

type captureControl struct {
	*fakeNamed
	cfg *string
}

func (c *captureControl) AddZone(ctx context.Context, zs *rndc.ZoneStatement) (string, error) {
	*c.cfg = zs.Block()
	return c.fakeNamed.AddZone(ctx, zs)
}

// TestCreateUndoFails: the hook fails after addzone and so does the undo's
// delzone (named died): the outcome is unknown, not "not created"; the
// intent stays pending and is settled from what named then reports.
func TestCreateUndoFails(t *testing.T) {
	r := newRig(t)
	h := &hook{err: errors.New("catalog update: EOF")}
	r.s.Hook = h
	r.named.delErr = errors.New("rndc delzone: connecting: connection refused")
	_, err := r.create("a.test")
	is(t, err, ErrOutcomeUnknown)
	if _, p, _ := r.store.PendingIntent("a.test"); !p {
		t.Fatal("intent not pending after a failed undo")
	}
	// named is back with the zone (from its new-zone database): settling
	// completes the create, hook included.
	r.named.delErr, h.err = nil, nil
	if act, err := r.s.Settle(context.Background(), "a.test"); err != nil || act != ActionCompletedCreate {
		t.Fatalf("settle = %q, %v", act, err)
	}
	r.state("a.test", true, false)
}

// TestReconcileEmptyJournal: named does not load a managed primary zone.
// With an empty journal (named killed as it created it) the full
// reconcile removes the journal, reloads the zone and reports it; with a
// journal that has content it reports the zone and why, and touches
// nothing.
func TestReconcileEmptyJournal(t *testing.T) {
	r := newRig(t)
	for _, z := range []string{"empty.test", "full.test"} {
		if _, err := r.create(z); err != nil {
			t.Fatal(err)
		}
		r.named.notLoaded[z] = true
	}
	if err := os.WriteFile(r.file("empty.test")+".jnl", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.file("full.test")+".jnl", []byte("journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := r.s.Reconcile(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Fixed) != 1 || rep.Fixed[0].Zone != "empty.test" || rep.Fixed[0].Action != ActionRemovedEmptyJournal {
		t.Errorf("fixed = %+v", rep.Fixed)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Zone != "full.test" || rep.Problems[0].Action != ProblemNotLoaded ||
		!strings.Contains(rep.Problems[0].Detail, "7 bytes") {
		t.Errorf("problems = %+v", rep.Problems)
	}
	if r.exists(r.file("empty.test") + ".jnl") {
		t.Error("the empty journal is still there")
	}
	if !r.exists(r.file("full.test") + ".jnl") {
		t.Error("the journal with content was removed")
	}
	if r.named.notLoaded["empty.test"] {
		t.Error("the zone was not reloaded")
	}
}

// TestDiskFullCreateNotLeftUnknown is issue 18's defect 6 (first part):
// the disk is full after the create's intent was recorded: writing the
// zone file fails, addzone is never sent, and marking the intent undone
// fails too. The create answers a storage error, and the same create
// right after (space is back) is not answered "named may still execute
// the addzone" (ErrOutcomeUnknown) until the intent's NotAfter: this
// process knows it never sent it.
func TestDiskFullCreateNotLeftUnknown(t *testing.T) {
	r := newRig(t)
	r.store.failCreateFile, r.store.failComplete = 1, 1
	_, err := r.create("full.test")
	is(t, err, ErrStorage)
	if _, p, _ := r.store.PendingIntent("full.test"); !p {
		t.Fatal("the fault was not reproduced: the intent is not pending")
	}
	if _, err := r.create("full.test"); err != nil {
		t.Fatalf("create after the disk-full one: %v", err)
	}
	r.state("full.test", true, false)
}
