package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// cacheNamed is fakeNamed with a serial and a frozen state per zone, as
// zonestatus reports them, freeze and thaw, and a count of the
// zonestatus and showzone commands.
type cacheNamed struct {
	*fakeNamed
	mu            sync.Mutex
	serial        map[string]uint32
	frozen        map[string]bool
	status, shows int
	extra         string // a clause showzone adds (a modzone by hand)
}

func (n *cacheNamed) ZoneStatus(ctx context.Context, zone string) (*rndc.ZoneStatus, error) {
	st, err := n.fakeNamed.ZoneStatus(ctx, zone)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.status++
	if err != nil {
		return nil, err
	}
	st.Serial, st.HasSerial, st.Frozen, st.Dynamic = n.serial[zone], true, n.frozen[zone], true
	st.Files, st.Nodes, st.LastLoaded = []string{"/zones/" + zone + ".zone", "/zones/inc"}, 3, "Fri, 27 Nov 2026 10:00:00 GMT"
	st.Raw, st.Fields = "name: "+zone, map[string]string{"name": zone}
	return st, nil
}

func (n *cacheNamed) ShowZoneStatement(ctx context.Context, zone string) (*rndc.ZoneStatement, error) {
	zc, err := n.fakeNamed.ShowZoneStatement(ctx, zone)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.shows++
	if err == nil {
		zc.Add("allow-update", rndc.List(rndc.Value{rndc.Word("key"), rndc.Quoted("k")}))
		if n.extra != "" {
			zc.Add(n.extra, rndc.Word("yes"))
		}
	}
	return zc, err
}

func (n *cacheNamed) Freeze(ctx context.Context, zone string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.frozen[zone] = true
	return "", nil
}

func (n *cacheNamed) Thaw(ctx context.Context, zone string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.frozen[zone] = false
	n.serial[zone]++ // the thaw's load found an edited file
	return "", nil
}

// commands returns and resets the counts of zonestatus and showzone.
func (n *cacheNamed) commands() (status, shows int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	status, shows = n.status, n.shows
	n.status, n.shows = 0, 0
	return status, shows
}

func (n *cacheNamed) set(f func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f()
}

// cacheRig is a rig whose service reads zones through the cache, with a
// zone z.example created.
func cacheRig(t *testing.T) (*rig, *cacheNamed) {
	r := newRig(t)
	n := &cacheNamed{fakeNamed: r.named, serial: map[string]uint32{}, frozen: map[string]bool{}}
	r.s.Control = n
	if _, err := r.create("z.example"); err != nil {
		t.Fatal(err)
	}
	n.set(func() { n.serial["z.example"] = 1 })
	r.now = r.now.Add(zoneSettle)
	n.commands()
	return r, n
}

// get reads the zone as a zone GET does, and returns its serial and
// frozen state, and the commands it sent named.
func (r *rig) get(n *cacheNamed, zone string) (serial uint32, frozen bool, status, shows int) {
	r.t.Helper()
	ctx := context.Background()
	zs, err := r.s.CachedZone(ctx, zone)
	if err != nil {
		r.t.Fatalf("CachedZone %s: %v", zone, err)
	}
	if _, err := r.s.CachedStatement(ctx, zone); err != nil {
		r.t.Fatalf("CachedStatement %s: %v", zone, err)
	}
	status, shows = n.commands()
	return zs.Status.Serial, zs.Status.Frozen, status, shows
}

func TestZoneCacheAnswersWithoutNamed(t *testing.T) {
	r, n := cacheRig(t)
	ctx := context.Background()
	if _, _, st, sh := r.get(n, "z.example"); st != 1 || sh != 1 {
		t.Fatalf("first read: %d zonestatus, %d showzone; want 1 and 1", st, sh)
	}
	live, err := r.s.Zone(ctx, "z.example")
	if err != nil {
		t.Fatal(err)
	}
	liveStmt, _ := r.s.ZoneStatement(ctx, "z.example")
	n.commands()
	for range 3 {
		zs, err := r.s.CachedZone(ctx, "z.example")
		if err != nil {
			t.Fatal(err)
		}
		zc, err := r.s.CachedStatement(ctx, "z.example")
		if err != nil {
			t.Fatal(err)
		}
		// What a zone GET answers is what named said.
		want := *live.Status
		want.Raw, want.Fields, want.Files = "", nil, want.Files[:1]
		if fmt.Sprintf("%+v", *zs.Status) != fmt.Sprintf("%+v", want) || zs.Managed != live.Managed || zs.File != live.File || zs.Entry != live.Entry {
			t.Errorf("cached state %+v %+v, named's %+v %+v", *zs.Status, zs, want, live)
		}
		if zc.String() != liveStmt.String() {
			t.Errorf("cached statement %s, named's %s", zc, liveStmt)
		}
	}
	if st, sh := n.commands(); st+sh != 0 {
		t.Errorf("cached reads sent %d zonestatus and %d showzone", st, sh)
	}
}

func TestZoneCacheFollowsChanges(t *testing.T) {
	r, n := cacheRig(t)
	ctx := context.Background()
	r.get(n, "z.example")

	// Freeze and thaw through the API: the next reads ask named, until
	// zoneSettle has passed.
	if _, err := r.s.Freeze(ctx, "z.example"); err != nil {
		t.Fatal(err)
	}
	if _, frozen, st, sh := r.get(n, "z.example"); !frozen || st != 1 || sh != 1 {
		t.Errorf("after freeze: frozen %v, %d zonestatus, %d showzone; want true, 1, 1", frozen, st, sh)
	}
	if _, _, st, _ := r.get(n, "z.example"); st != 1 {
		t.Errorf("within zoneSettle of the freeze: %d zonestatus; want 1 (nothing cached)", st)
	}
	r.now = r.now.Add(zoneSettle)
	r.get(n, "z.example")
	if _, _, st, sh := r.get(n, "z.example"); st+sh != 0 {
		t.Errorf("after zoneSettle: %d zonestatus, %d showzone; want cached", st, sh)
	}
	if _, err := r.s.Thaw(ctx, "z.example"); err != nil {
		t.Fatal(err)
	}
	if serial, frozen, _, _ := r.get(n, "z.example"); frozen || serial != 2 {
		t.Errorf("after thaw: serial %d frozen %v; want 2 false", serial, frozen)
	}
	r.now = r.now.Add(zoneSettle)
	r.get(n, "z.example")

	// A NOTIFY (a change behind the API's back that moved the serial):
	// zonestatus again, not showzone.
	n.set(func() { n.serial["z.example"] = 7 })
	nctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.s.Notices(nctx)("z.example.")
	if serial, _, st, sh := r.get(n, "z.example"); serial != 7 || st != 1 || sh != 0 {
		t.Errorf("after a NOTIFY: serial %d, %d zonestatus, %d showzone; want 7, 1, 0", serial, st, sh)
	}

	// A record change through the service drops the zonestatus part.
	r.s.statusChanged("z.example", false)
	if _, _, st, sh := r.get(n, "z.example"); st != 1 || sh != 0 {
		t.Errorf("after a record change: %d zonestatus, %d showzone; want 1, 0", st, sh)
	}

	// A change by hand with no NOTIFY (rndc freeze, modzone): seen once
	// the entry is older than ZoneCacheMaxAge.
	n.set(func() { n.frozen["z.example"], n.extra = true, "notify-to-soa" })
	if _, frozen, st, sh := r.get(n, "z.example"); frozen || st+sh != 0 {
		t.Errorf("within the max age: frozen %v, %d commands; want the cached state", frozen, st+sh)
	}
	r.now = r.now.Add(DefaultZoneCacheMaxAge)
	if _, frozen, st, sh := r.get(n, "z.example"); !frozen || st != 1 || sh != 1 {
		t.Errorf("past the max age: frozen %v, %d zonestatus, %d showzone; want true, 1, 1", frozen, st, sh)
	}
	if zc, _ := r.s.CachedStatement(ctx, "z.example"); !strings.Contains(zc.String(), "notify-to-soa") {
		t.Errorf("past the max age: statement %s lacks the clause added by hand", zc)
	}
	n.commands()

	// named restarted: everything is asked again.
	r.s.zoneCache().clear()
	if _, _, st, sh := r.get(n, "z.example"); st != 1 || sh != 1 {
		t.Errorf("after a restart: %d zonestatus, %d showzone; want 1, 1", st, sh)
	}
}

// TestZoneCacheFollowsOtherProcesses: a delete by another process on the
// same zone directory (its index change) is seen at the next read.
func TestZoneCacheFollowsOtherProcesses(t *testing.T) {
	r, n := cacheRig(t)
	ctx := context.Background()
	r.get(n, "z.example")
	other, err := zonestore.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Remove("z.example"); err != nil {
		t.Fatal(err)
	}
	n.set(func() { delete(n.zones, "z.example") })
	if _, err := r.s.CachedZone(ctx, "z.example"); !isKind(err, ErrNotFound) {
		t.Errorf("read after another process deleted the zone: %v; want ErrNotFound", err)
	}
	if _, err := r.s.CachedStatement(ctx, "z.example"); !isKind(err, ErrNotFound) {
		t.Errorf("statement after another process deleted the zone: %v; want ErrNotFound", err)
	}
}

// TestZoneCacheFollowsOtherProcessesTouches: a freeze by another process
// on the same zone directory (a touch in the index, no entry changed) is
// seen at the next read, which asks named, and nothing of the zone is
// cached for zoneSettle after it; a thaw or a retransfer through this
// service touches the zone for the other processes. Before, a freeze, thaw, reload or
// modify left nothing in the index, and the other process answered its
// cached state for up to the max age.
func TestZoneCacheFollowsOtherProcessesTouches(t *testing.T) {
	r, n := cacheRig(t)
	ctx := context.Background()
	r.get(n, "z.example")
	other, err := zonestore.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	n.set(func() { n.frozen["z.example"] = true })
	if err := other.Touch("z.example"); err != nil {
		t.Fatal(err)
	}
	if _, frozen, st, _ := r.get(n, "z.example"); !frozen || st != 1 {
		t.Errorf("after another process's freeze: frozen %v, %d zonestatus; want true, 1", frozen, st)
	}
	if _, _, st, _ := r.get(n, "z.example"); st != 1 {
		t.Errorf("within zoneSettle of another process's freeze: %d zonestatus; want 1 (nothing cached)", st)
	}
	_, seq, _, err := other.ChangesSince(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.s.Thaw(ctx, "z.example"); err != nil {
		t.Fatal(err)
	}
	changes, _, ok, err := other.ChangesSince(seq)
	touched := false
	for _, ch := range changes {
		touched = touched || ch.Touched && ch.Entry.Name == "z.example"
	}
	if err != nil || !ok || !touched {
		t.Errorf("the other process's index after a thaw here: %+v ok %v err %v, want z.example touched", changes, ok, err)
	}
	// A retransfer (named completes it later) touches the zone too.
	_, seq, _, _ = other.ChangesSince(0)
	r.s.Control = retransferNamed{n}
	if _, err := r.s.Retransfer(ctx, "z.example"); err != nil {
		t.Fatal(err)
	}
	if changes, _, _, _ := other.ChangesSince(seq); len(changes) != 1 || !changes[0].Touched {
		t.Errorf("the other process's index after a retransfer here: %+v, want z.example touched", changes)
	}
}

// retransferNamed is cacheNamed that answers retransfer.
type retransferNamed struct{ *cacheNamed }

func (retransferNamed) Retransfer(context.Context, string) (string, error) { return "", nil }

func isKind(err error, kind error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// TestZoneCacheDropsReadsInFlight: a read of named that a change
// overtakes does not store what it read.
func TestZoneCacheDropsReadsInFlight(t *testing.T) {
	var c zoneCache
	st := &rndc.ZoneStatus{Type: "primary", Serial: 1, HasSerial: true}
	f := c.begin("z")
	c.drop("z", true, false, 0)
	c.end("z", f, st, nil, 1, time.Minute)
	if _, ok := c.lookup("z", true, false, 2, time.Minute); ok {
		t.Error("a read overtaken by a change was cached")
	}
	f = c.begin("z")
	c.clear()
	c.end("z", f, st, nil, 1, time.Minute)
	if c.len() != 0 {
		t.Error("a read overtaken by a restart of named was cached")
	}
	f = c.begin("z")
	c.end("z", f, st, nil, 1, time.Minute)
	if z, ok := c.lookup("z", true, false, 2, time.Minute); !ok || z.serial != 1 {
		t.Error("a read nothing overtook was not cached")
	}
}

// TestZoneCacheSize measures what an entry costs: zonestatus's fields and
// showzone's statement of a zone created through the API, each parsed
// from named's text as the control client does (an entry must not keep
// that text alive).
func TestZoneCacheSize(t *testing.T) {
	const n = 20000
	entry := func(i int) (*rndc.ZoneStatus, *rndc.ZoneStatement) {
		name := fmt.Sprintf("z%06d.example", i)
		st, err := rndc.ParseZoneStatus(fmt.Sprintf("name: %s\ntype: primary\nfiles: /var/lib/zoneapi/zones/%s.zone\nserial: 2026112701\n"+
			"nodes: 3\nlast loaded: Fri, 27 Nov 2026 10:%02d:00 GMT\nsecure: no\ndynamic: yes\nfrozen: no\nreconfigurable via modzone: yes\n"+
			"next refresh: Fri, 27 Nov 2026 11:00:00 GMT\nexpires: Fri, 04 Dec 2026 10:00:00 GMT\n", name, name, i%60))
		if err != nil {
			t.Fatal(err)
		}
		zc, err := rndc.ParseZoneStatement(fmt.Sprintf(`zone "%s" { type primary; file "/var/lib/zoneapi/zones/%s.zone"; allow-update { key "zoneapi-update"; }; };`, name, name))
		if err != nil {
			t.Fatal(err)
		}
		return st, zc
	}
	var c zoneCache
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		st, zc := entry(i)
		c.end(st.Name, c.begin(st.Name), st, zc, 1, time.Hour)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	_, zc := entry(0)
	t.Logf("%.0f bytes per cached zone (%d zones; the statement's text is %d bytes)", per, c.len(), len(zc.String()))
	if per > 450 {
		t.Errorf("%.0f bytes per cached zone; want at most 450", per)
	}
	runtime.KeepAlive(&c)
}

// meetNamed is cacheNamed whose zonestatus and showzone each wait (up to
// 5 s) until the other has arrived: both answer only when they are in
// flight at once; one sent after the other's answer fails.
type meetNamed struct {
	*cacheNamed
	status, show         chan struct{}
	statusOnce, showOnce sync.Once
}

func (n *meetNamed) meet(mine chan struct{}, once *sync.Once, other chan struct{}) error {
	once.Do(func() { close(mine) })
	select {
	case <-other:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("zonestatus and showzone were not in flight at once")
	}
}

func (n *meetNamed) ZoneStatus(ctx context.Context, zone string) (*rndc.ZoneStatus, error) {
	if err := n.meet(n.status, &n.statusOnce, n.show); err != nil {
		return nil, err
	}
	return n.cacheNamed.ZoneStatus(ctx, zone)
}

func (n *meetNamed) ShowZoneStatement(ctx context.Context, zone string) (*rndc.ZoneStatement, error) {
	if err := n.meet(n.show, &n.showOnce, n.status); err != nil {
		return nil, err
	}
	return n.cacheNamed.ShowZoneStatement(ctx, zone)
}

// TestZoneCacheMissAsksAtOnce: a zone's first read (CachedZoneAndStatement,
// the PowerDNS zone GET's; CachedZone then CachedStatement, the zone
// API's) sends zonestatus and showzone concurrently, so that it costs one
// round trip to named, not two; the next read sends nothing. Sent one
// after the other (as both GETs did before), the first command waits for
// the second in vain.
func TestZoneCacheMissAsksAtOnce(t *testing.T) {
	r, n := cacheRig(t)
	m := &meetNamed{cacheNamed: n, status: make(chan struct{}), show: make(chan struct{})}
	r.s.Control = m
	ctx := context.Background()
	zs, zc, err, serr := r.s.CachedZoneAndStatement(ctx, "z.example")
	if err != nil || serr != nil {
		t.Fatalf("first read: %v; statement: %v", err, serr)
	}
	if zs.Status.Serial != 1 || !strings.Contains(zc.String(), "allow-update") {
		t.Errorf("first read: serial %d, statement %s", zs.Status.Serial, zc)
	}
	if st, sh := n.commands(); st != 1 || sh != 1 {
		t.Errorf("first read: %d zonestatus, %d showzone; want 1 and 1", st, sh)
	}
	if _, _, err, serr := r.s.CachedZoneAndStatement(ctx, "z.example"); err != nil || serr != nil {
		t.Fatalf("second read: %v; statement: %v", err, serr)
	}
	if st, sh := n.commands(); st+sh != 0 {
		t.Errorf("second read: %d zonestatus, %d showzone; want cached", st, sh)
	}

	// The zone API's GET: CachedZone, then CachedStatement (ZoneDetails).
	r.s.zoneCache().drop(cacheKey("z.example"), true, true, 0)
	r.s.Control = &meetNamed{cacheNamed: n, status: make(chan struct{}), show: make(chan struct{})}
	if _, _, st, sh := r.get(n, "z.example"); st != 1 || sh != 1 {
		t.Errorf("zone API's first read: %d zonestatus, %d showzone; want 1 and 1", st, sh)
	}
}
