// Package inventory is the list of every zone named serves, in every
// view, whatever configured it: named.conf, `rndc addzone` (the new-zone
// database, NZD) or this API. It is read from named's statistics channel
// (`/json/v1/zones`, one HTTP GET that lists every zone of every view with
// its type and serial: about 50 ms and 1.7 MB at 10,000 zones), never per
// request: a snapshot is kept and refreshed in the background, and the
// zone service corrects it at once after its own creates, deletes and
// adoptions (Forget, Invalidate).
//
// Where a zone's configuration comes from is not in the statistics. A
// zone the zone service's index has (Indexed) is of the new-zone
// database; any other is asked once, when it first appears, with `rndc
// zonestatus` ("reconfigurable via modzone: yes" for a zone of the
// new-zone database, "no" for one of named.conf), in the background at a
// bounded rate (Rate), and remembered while the zone stays, across
// restarts too (below).
//
// Across restarts: each snapshot, with every zone's source, is kept
// (Save: zonestore's kept file, written atomically in the background
// after each refresh that changed something). The first call after a
// start answers from it (Load; Snapshot.Kept) without waiting for named,
// whose statistics channel takes seconds at 100,000 zones, and asks for
// a refresh at once; later calls answer the fresh one once it lands.
// Once a read of named has failed after the start, the kept snapshot is
// not answered any more: a call asks named, and fails as a start with
// nothing kept does, until named answers.
// Until then a zone added or removed while the process was down is
// missing or still listed, and serials are as of the last run's last
// refresh; a zone the API deleted after that refresh and before the
// process stopped shows as not managed. Fresh is for the callers that
// must have named's present serials (the history's catch-up). A zone
// that went away and came back with another origin while nothing ran
// keeps the origin learned before.
//
// How stale it can be: a zone added or removed outside the API, and a
// serial changed by anything, show up at the next refresh, which runs
// every Refresh (default 30 s) while the inventory is being asked, and
// never more often than once per 20 times a refresh's own duration (a
// refresh reads every zone: at 100,000 zones the statistics channel's
// answer is some 17 MB). A call never waits for a refresh once there is
// a snapshot: one that finds it older than twice Refresh asks for one.
// The API's own creates, deletes and adoptions show at once in the zone
// service's list.
//
// The package does no I/O of its own: Open or Fetch (the statistics
// channel's HTTP GET, which belongs to the Caddy glue; Open's answer is
// parsed as it comes, never held whole), Status (the control
// channel), Load and Save are given to it.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Where a zone's configuration comes from.
const (
	// SourceNamedConf: named's configuration file; modzone and delzone
	// cannot change it durably.
	SourceNamedConf = zonemodel.ZoneSourceNamedConf
	// SourceNZD: the new-zone database (added with `rndc addzone`
	// outside the API, or by another tool).
	SourceNZD = zonemodel.ZoneSourceNZD
	// SourceAPI: the new-zone database, for a zone created or adopted
	// through the API (its index knows it). The inventory itself never
	// reports it: the zone service does, from its index.
	SourceAPI = zonemodel.ZoneSourceAPI
)

// DefaultView is the view named puts zones in when named.conf has no
// view statement.
const DefaultView = zonemodel.ZoneViewDefault

// Zone is one zone named serves.
type Zone struct {
	// Name is the zone's name, lower case, without the trailing dot.
	Name string
	// View is the view that serves it (DefaultView without views).
	View string
	// Type is named's type: primary, secondary, mirror, forward, stub,
	// redirect, static-stub.
	Type string
	// Serial is the SOA serial; HasSerial is false when named has not
	// loaded the zone (a secondary before its first transfer).
	Serial    uint32
	HasSerial bool
	// Source is SourceNamedConf or SourceNZD, or "" when named could not
	// be asked yet (asked again at the next refresh).
	Source string
}

// Key identifies a zone across views: "name/view".
func (z *Zone) Key() string { return z.Name + "/" + z.View }

// Inventory keeps a snapshot of named's zones fresh. Set Fetch and
// Status; the zero values of the others are their defaults. It is safe
// for concurrent use.
type Inventory struct {
	// Fetch returns the body of the statistics channel's /json/v1/zones.
	Fetch func(ctx context.Context) ([]byte, error)
	// Open, if set, is used instead of Fetch: the body as it is read,
	// parsed as it comes (ParseFrom) rather than read whole first (some
	// 17 MB at 100,000 zones, and as much again to decode it whole).
	Open func(ctx context.Context) (io.ReadCloser, error)
	// Status reports whether named can reconfigure the zone by modzone
	// (`rndc zonestatus <name> in <view>`: "reconfigurable via modzone"),
	// which tells a zone of the new-zone database from one of named.conf.
	Status func(ctx context.Context, name, view string) (reconfigurable bool, err error)
	// Refresh is the time between background refreshes, which run while
	// the inventory is being used (stopping after 10 refreshes nobody
	// asked for). Default 30 s.
	Refresh time.Duration
	// Parallel is how many zonestatus commands classify new zones at
	// once. Default 4.
	Parallel int
	// Rate bounds the zonestatus commands that classify new zones, per
	// second, so that learning where thousands of zones come from never
	// takes named from the foreground. Default 200.
	Rate int
	// ClassifyWait is how long a refresh waits for the classification of
	// the zones it found new before it answers, when there are few
	// enough to be asked meanwhile at Rate; the others are learned in the
	// background and published as it ends. Default 500 ms.
	ClassifyWait time.Duration
	// Indexed, if set, reports whether the zone service's index has the
	// zone: one the API created or adopted, in the new-zone database,
	// whose source is not asked.
	Indexed func(name, view string) bool
	// Load, if set, returns what Save kept (ok false when nothing is
	// kept). The first call of Zones answers from it, without waiting for
	// named, and asks for a refresh at once (see Kept).
	Load func() (data []byte, ok bool, err error)
	// Save, if set, keeps data durably and atomically (a crash leaves the
	// old data or the new, whole): the zones of the last snapshot and
	// where each comes from, written in the background after each
	// refresh that changed them and after each classification.
	Save func(data []byte) error
	// Logger receives a line per failed refresh.
	Logger *zap.Logger

	// keptErr is the error of a read of named that failed while the
	// snapshot was a kept one (keptFailed). Guarded by mu.
	keptErr error

	// Fetches and StatusCalls count the reads of the statistics channel
	// and the zonestatus commands, for tests and metrics.
	Fetches, StatusCalls atomic.Int64

	mu         sync.Mutex
	snap       *Snapshot
	learnedSrc map[forgetKey]string // what the classification running learned so far
	learning   bool                 // a classification runs
	learned    chan struct{}        // closed when it ends
	lastUse    time.Time
	running    bool
	kick       chan struct{}
	stop       chan struct{}
	refreshM   sync.Mutex    // one refresh at a time
	gen        uint64        // bumped by Forget, so a refresh begun before it does not resurrect
	snapGen    uint64        // the last Snapshot.Gen
	lastDur    time.Duration // how long the last refresh took
	wanted     bool          // a read of named begun after wantAfter is asked for
	wantAfter  time.Time
	loadM      sync.Mutex // one Load at a time
	loaded     bool       // Load was tried
	saving     bool       // a save runs
	dirty      bool       // a snapshot was published since the save began
	savedSum   [32]byte   // what the last save wrote (its SHA-256)
}

// ErrNoStatistics means no statistics channel is configured.
var ErrNoStatistics = errors.New("no statistics channel configured")

func (inv *Inventory) refreshEvery() time.Duration {
	if inv.Refresh <= 0 {
		return 30 * time.Second
	}
	return inv.Refresh
}

func (inv *Inventory) log() *zap.Logger {
	if inv.Logger == nil {
		return zap.NewNop()
	}
	return inv.Logger
}

// Zones returns the current snapshot. The first call asks named (and
// waits for it); later calls answer the snapshot kept at once, which the
// background refresh renews every Refresh while calls keep coming (one
// that finds it older than twice Refresh asks for a refresh, and does not
// wait for it).
func (inv *Inventory) Zones(ctx context.Context) (*Snapshot, error) {
	if inv == nil || inv.Fetch == nil && inv.Open == nil {
		return nil, ErrNoStatistics
	}
	inv.mu.Lock()
	snap := inv.snap
	inv.lastUse = time.Now()
	inv.mu.Unlock()
	if snap == nil {
		snap = inv.loadKept()
	}
	if snap != nil && !inv.keptFailed(snap) {
		inv.startLoop()
		if snap.Kept || time.Since(snap.Taken) > 2*inv.refreshEvery() {
			inv.Invalidate()
		}
		return snap, nil
	}
	// The first snapshot: callers that come together share one read.
	inv.refreshM.Lock()
	inv.mu.Lock()
	snap = inv.snap
	inv.mu.Unlock()
	var err error
	if snap == nil || inv.keptFailed(snap) {
		snap, err = inv.refreshLocked(ctx)
	}
	inv.refreshM.Unlock()
	if err != nil {
		return nil, err
	}
	inv.startLoop()
	return snap, nil
}

// Held returns the snapshot the inventory holds, without asking named
// or loading what an earlier process kept: nil when it has none yet, or
// holds only a kept snapshot a read of named failed to replace (which
// Zones does not answer either).
func (inv *Inventory) Held() *Snapshot {
	if inv == nil {
		return nil
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.snap == nil || inv.snap.Kept && inv.keptErr != nil {
		return nil
	}
	return inv.snap
}

// keptFailed reports whether snap is a kept snapshot (Load) that a read
// of named has failed to replace: it is then not answered any more (it
// is what named served when the last run stopped, however long ago), and
// a call asks named as a start with nothing kept does.
func (inv *Inventory) keptFailed(snap *Snapshot) bool {
	if !snap.Kept {
		return false
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.keptErr != nil
}

// failedRead notes a failed read of named (keptFailed) and returns err.
func (inv *Inventory) failedRead(err error) error {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.snap != nil && inv.snap.Kept {
		inv.keptErr = err
	}
	return err
}

// Fresh is Zones, but for a snapshot read from named by this process:
// when Zones would answer a kept one (Kept), it waits for a refresh (one
// that runs, or its own).
func (inv *Inventory) Fresh(ctx context.Context) (*Snapshot, error) {
	snap, err := inv.Zones(ctx)
	if err != nil || !snap.Kept {
		return snap, err
	}
	inv.refreshM.Lock()
	defer inv.refreshM.Unlock()
	inv.mu.Lock()
	snap = inv.snap
	inv.mu.Unlock()
	if snap != nil && !snap.Kept {
		return snap, nil
	}
	return inv.refreshLocked(ctx)
}

// RefreshNow asks named now and returns the new snapshot. Where each
// zone comes from is known from earlier refreshes or the index
// (Indexed); the zones new to it are classified by zonestatus, at most
// Rate a second, and RefreshNow waits at most ClassifyWait for that: the
// snapshot it returns then has "" for the zones not classified yet, and
// a snapshot with them is published when the classification ends.
func (inv *Inventory) RefreshNow(ctx context.Context) (*Snapshot, error) {
	inv.refreshM.Lock()
	defer inv.refreshM.Unlock()
	return inv.refreshLocked(ctx)
}

// refreshWanted is RefreshNow for a kick, unless a read of named begun
// after the first kick not served yet (signal) has landed meanwhile
// (Fresh's, or the restart watch's RefreshNow): it then answers that.
func (inv *Inventory) refreshWanted(ctx context.Context) (*Snapshot, error) {
	inv.refreshM.Lock()
	defer inv.refreshM.Unlock()
	inv.mu.Lock()
	snap, wanted := inv.snap, inv.wanted
	inv.mu.Unlock()
	if snap != nil && !snap.Kept && !wanted {
		return snap, nil
	}
	return inv.refreshLocked(ctx)
}

// refreshLocked is RefreshNow; the caller holds refreshM.
func (inv *Inventory) refreshLocked(ctx context.Context) (*Snapshot, error) {
	inv.mu.Lock()
	gen := inv.gen
	inv.mu.Unlock()
	asked := time.Now()
	inv.Fetches.Add(1)
	inv.mu.Lock()
	hint := 0
	if inv.snap != nil {
		hint = len(inv.snap.rs)
	}
	inv.mu.Unlock()
	zones, views, err := inv.read(ctx, hint)
	if err != nil {
		return nil, inv.failedRead(err)
	}
	inv.mu.Lock()
	// Each zone's source is the last snapshot's (both sorted: one walk,
	// no map of every zone), else what a classification running learned,
	// else the index's, else to be asked.
	var prev rows
	if inv.snap != nil {
		prev = inv.snap.rows
	}
	// The same walk notes the names whose zones differ from the last
	// snapshot's (Changed), for those who follow the snapshots.
	var todo []Zone
	var ch changes
	j := 0
	for i := range zones {
		z := &zones[i]
		for j < len(prev.rs) && compareRow(&prev, j, z) < 0 {
			ch.add(prev.rs[j].name) // gone from named
			j++
		}
		same := j < len(prev.rs) && compareRow(&prev, j, z) == 0
		switch src, learned := inv.learnedSrc[forgetKey{z.Name, z.View}]; {
		case same && prev.rs[j].src != 0:
			z.Source = prev.strs[prev.rs[j].src]
		case learned:
			z.Source = src
		case inv.Indexed != nil && inv.Indexed(z.Name, z.View):
			z.Source = SourceNZD
		case inv.Status != nil:
			todo = append(todo, *z)
		}
		if !same || !prev.sameAs(j, z) {
			ch.add(z.Name)
		}
		if same {
			j++
		}
	}
	for ; j < len(prev.rs); j++ {
		ch.add(prev.rs[j].name)
	}
	inv.snapGen++
	snap := &Snapshot{rows: compact(zones), Views: views, Taken: time.Now(), Gen: inv.snapGen, asked: asked}
	snap.changed = ch.after(inv.snap, len(zones))
	if prev := inv.snap; inv.gen != gen && prev != nil && prev.nGone > 0 {
		// A Forget ran while named was asked, whose answer may still
		// list the zone: keep hiding what the snapshot before hid,
		// until a read begun after the Forget lands (signalled below).
		snap.Forgotten, snap.fg, snap.nGone = prev.Forgotten, prev.fg, prev.nGone
	}
	inv.snap = snap
	inv.save()
	if inv.wanted && asked.After(inv.wantAfter) {
		inv.wanted = false
	}
	if inv.gen != gen {
		// A Forget ran meanwhile: named was asked before or after it,
		// so ask again at the next refresh rather than trust this one.
		inv.signal()
	}
	var learned chan struct{}
	if len(todo) > 0 && !inv.learning {
		inv.learning = true
		learned = make(chan struct{})
		inv.learned = learned
		go inv.learn(todo, learned)
	} else if inv.learning {
		learned = inv.learned
	}
	inv.mu.Unlock()
	wait := inv.ClassifyWait
	if wait <= 0 {
		wait = 500 * time.Millisecond
	}
	if learned != nil && len(todo) > 0 && len(todo) <= int(wait.Seconds()*float64(inv.rate())) {
		// Worth waiting for: they can all be asked meanwhile.
		t := time.NewTimer(wait)
		select {
		case <-learned:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.snap, nil
}

// read asks named for its zones (about hint of them): Open's body parsed
// as it comes, or Fetch's.
func (inv *Inventory) read(ctx context.Context, hint int) ([]Zone, []string, error) {
	if inv.Open == nil {
		body, err := inv.Fetch(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("reading named's statistics channel: %w", err)
		}
		return Parse(body)
	}
	body, err := inv.Open(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading named's statistics channel: %w", err)
	}
	defer body.Close()
	return ParseFrom(body, hint)
}

// Invalidate asks for a refresh soon (in the background); the snapshot
// kept is answered meanwhile.
func (inv *Inventory) Invalidate() {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.signal()
}

// signal wakes the background refresh, for a read of named begun after
// now; inv.mu is held.
func (inv *Inventory) signal() {
	if !inv.wanted {
		inv.wanted, inv.wantAfter = true, time.Now()
	}
	if inv.kick == nil {
		return
	}
	select {
	case inv.kick <- struct{}{}:
	default:
	}
}

// Forget removes a zone from the snapshot at once (the zone service
// deleted it), in view, or in every view when view is "". A refresh
// that was asking named meanwhile is followed by another one.
func (inv *Inventory) Forget(name, view string) {
	if inv == nil {
		return
	}
	name = zonemodel.ZoneOfOrigin(strings.ToLower(name))
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.gen++
	old := inv.snap
	if old == nil {
		return
	}
	// The snapshots since named's answer share fg, whose entries only
	// grow: a new snapshot hides one more, O(1).
	fg := old.fg
	if fg == nil {
		fg = &forgets{at: map[forgetKey]int{}}
	}
	fg.mu.Lock()
	n := len(fg.names)
	if _, ok := fg.at[forgetKey{name, view}]; !ok {
		fg.at[forgetKey{name, view}] = n
	}
	fg.names = append(fg.names, name)
	forgotten := fg.names[: n+1 : n+1]
	fg.mu.Unlock()
	inv.snap = &Snapshot{rows: old.rows, Views: old.Views, Taken: old.Taken, Gen: old.Gen, Kept: old.Kept, asked: old.asked,
		Forgotten: forgotten, fg: fg, nGone: n + 1, changed: old.changed}
	inv.signal()
}

// startLoop starts the background refresh unless it runs.
func (inv *Inventory) startLoop() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.running {
		return
	}
	inv.running = true
	inv.kick = make(chan struct{}, 1)
	inv.stop = make(chan struct{})
	go inv.loop(inv.kick, inv.stop)
}

// loop refreshes every Refresh, or when kicked, until ten refreshes in a
// row went unused or Stop.
func (inv *Inventory) loop(kick, stop chan struct{}) {
	t := time.NewTicker(inv.refreshEvery())
	defer t.Stop()
	for {
		kicked := false
		select {
		case <-stop:
			return
		case <-kick:
			kicked = true
		case <-t.C:
		}
		inv.mu.Lock()
		idle := time.Since(inv.lastUse) > 10*inv.refreshEvery()
		if idle {
			inv.running = false
			inv.mu.Unlock()
			return
		}
		inv.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), inv.refreshEvery())
		start := time.Now()
		refresh := inv.RefreshNow
		if kicked {
			refresh = inv.refreshWanted
		}
		if _, err := refresh(ctx); err != nil {
			inv.log().Warn("refreshing the zone inventory failed; the last snapshot is kept", zap.Error(err))
		}
		cancel()
		// What the refreshes ask of named (and cost here) stays under
		// 1/(1+refreshPause) of the time, however many zones: kicks
		// meanwhile (Forget, Invalidate) wait, and are served by one
		// refresh.
		select {
		case <-stop:
			return
		case <-time.After(min(refreshPause*time.Since(start), 10*time.Minute)):
		}
	}
}

// refreshPause is how many times a refresh's duration the background
// refresh waits before the next one.
const refreshPause = 20

// Stop ends the background refresh.
func (inv *Inventory) Stop() {
	if inv == nil {
		return
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.running {
		close(inv.stop)
		inv.running = false
	}
}
