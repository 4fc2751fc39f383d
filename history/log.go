package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrLocked means another process writes the directory's history.
var ErrLocked = errors.New("history: another process holds the history's lock")

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("history: log closed")

// Default retention.
const (
	// DefaultMaxAge is how long entries are kept by default.
	DefaultMaxAge = 90 * 24 * time.Hour
	// DefaultMaxSize is how many bytes of entries are kept by default.
	DefaultMaxSize = 256 << 20
	// tailEntries is how many of the newest entries Read serves from
	// memory.
	tailEntries = 4096
	// DefaultSyncDelay is Options.SyncDelay's default.
	DefaultSyncDelay = 50 * time.Millisecond
)

// Options are a Log's retention and clock.
type Options struct {
	// MaxAge drops the entries older than this (whole segments, so a
	// segment goes when its newest entry is older). Zero: DefaultMaxAge;
	// negative: no limit.
	MaxAge time.Duration
	// MaxSize bounds the bytes of the history on disk (whole segments
	// are dropped, oldest first, while the total is over it). Zero:
	// DefaultMaxSize; negative: no limit.
	MaxSize int64
	// SegmentSize is the size at which a new segment is begun. Zero:
	// MaxSize/16, between 64 KiB and 16 MiB.
	SegmentSize int64
	// SyncEach makes Append return only once its entries are fsynced
	// (concurrent appends share one fsync). Without it, Append returns
	// once its entries are written to the file (they survive a crash of
	// the process, such as SIGKILL), and a goroutine of the Log fsyncs
	// them within SyncDelay, with every entry written meanwhile, while
	// the next appends go on: an operating system crash or a power loss
	// may then lose the entries of the last moments, which the zone
	// service records again from named's journal (IXFR) at start, as
	// external changes.
	SyncEach bool
	// SyncDelay is how long, without SyncEach, the fsync waits after
	// the first write it makes durable, so that one fsync covers the
	// writes of that time: an fsync costs far more than a write (the
	// filesystem's journal commit, the disk's cache flush, and, when
	// named journals its zones on the same disk, a wait behind named's
	// own fsyncs or named's behind it). Zero: DefaultSyncDelay;
	// negative: none (an fsync at once after each write, and the writes
	// made while it runs share the next one).
	SyncDelay time.Duration
	// Now returns the time (tests). Default time.Now.
	Now func() time.Time
	// syncFile replaces the background fsync (tests that make it fail).
	syncFile func(*os.File) error
	// bootIDFile replaces bootIDPath, the kernel's boot ID (tests that
	// reboot).
	bootIDFile string
}

// segment is one file of the log.
type segment struct {
	first  uint64 // the first Seq it holds (its name)
	last   uint64 // the last Seq it holds (first-1 when empty)
	size   int64  // its bytes written and synced
	path   string
	newest time.Time // the Time of its last entry
}

// batch is the entries of the appends one fsync makes durable.
type batch struct {
	buf     []byte
	entries []Entry
	done    chan struct{}
	err     error
}

// Log is a directory's change history. Its methods are safe for
// concurrent use.
type Log struct {
	dir  string
	opts Options
	lock *os.File

	// wmu is held by a flush from the taking of the batch until it is
	// written, so that batches reach the file in the order they were
	// taken, whichever goroutine writes them.
	wmu sync.Mutex

	mu        sync.Mutex
	segs      []segment            // oldest first; the last is the active one
	f         *os.File             // the active segment, open for appending
	last      uint64               // the highest Seq assigned
	durable   uint64               // the highest Seq written and synced
	cur       *batch               // the appends waiting for the next fsync
	holds     int                  // Holds not yet released: cur is not written meanwhile
	tail      []Entry              // the newest durable entries, oldest first
	zones     map[string]zoneState // by zoneKey: its serials and its life (serials.go)
	counts    map[[2]string]uint64 // entries written by this Log, by type and source
	extRecent map[string][]uint32  // by zoneKey: the serials after the zone's latest external entries, newest last
	changed   chan struct{}
	closed    bool
	lastKey   lastKey // the zone key built last (key)

	kick chan struct{}
	stop chan struct{}
	done chan struct{}

	// syncKick wakes the syncer (without SyncEach); syncDone is closed
	// when it stopped.
	syncKick chan struct{}
	syncDone chan struct{}
	// syncs counts the fsyncs of written entries (Syncs); syncErrs those
	// that failed (SyncErrors).
	syncs, syncErrs atomic.Uint64
	// notRecorded counts the entries its writers could not write and
	// logged instead (NotRecorded).
	notRecorded atomic.Uint64
	// syncFile fsyncs the active segment (Options.syncFile or
	// (*os.File).Sync).
	syncFile func(*os.File) error

	// health: see health.go.
	health
	// inflight: the record changes being made (inflight.go).
	inflight inflight
	// caughtUp is set by the first FirstCatchUp.
	caughtUp atomic.Bool
}

// Open opens (creating it if needed) the history in dir, repairs a torn
// last line a crash left, applies the retention and starts the writer.
// Close releases it.
func Open(dir string, opts Options) (*Log, error) {
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.MaxSize == 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.SegmentSize <= 0 {
		opts.SegmentSize = min(max(opts.MaxSize/16, 64<<10), 16<<20)
		if opts.MaxSize < 0 {
			opts.SegmentSize = 16 << 20
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.syncFile == nil {
		opts.syncFile = (*os.File).Sync
	}
	if opts.SyncDelay == 0 {
		opts.SyncDelay = DefaultSyncDelay
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("history: locking %s: %w", dir, err)
	}
	l := &Log{dir: dir, opts: opts, lock: lf, zones: map[string]zoneState{}, counts: map[[2]string]uint64{}, extRecent: map[string][]uint32{}, syncFile: opts.syncFile, changed: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.load(); err != nil {
		lf.Close()
		return nil, err
	}
	if l.markRunning() {
		l.last += rebootGap // reboot.go
	}
	l.prune()
	for k, z := range l.zones {
		z.written, z.hasWritten = z.serial, z.hasSerial
		l.zones[k] = z
	}
	l.syncKick, l.syncDone = make(chan struct{}, 1), make(chan struct{})
	go l.writer()
	go l.syncer()
	return l, nil
}

// Append records the entries, in order, and returns them as recorded
// (Seq, ID and, where it was zero, Time set). It returns once they are
// written to the file (and fsynced, with Options.SyncEach); concurrent
// appends share one write and one fsync.
func (l *Log) Append(es ...Entry) ([]Entry, error) {
	return l.Enqueue(es...).Wait()
}

// Hold keeps what is enqueued from now on from being written until the
// returned function is called (once; later calls do nothing): entries
// that belong together (one UPDATE message's, which share its serials)
// then reach the file in one write, and a crash keeps all or none of
// them. Holds nest; the pending entries are written when the last is
// released. A holder must not Wait before releasing.
func (l *Log) Hold() (release func()) {
	l.mu.Lock()
	l.holds++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.holds--
			write := l.holds == 0 && l.cur != nil
			l.mu.Unlock()
			// The last release writes the batch itself (one write
			// syscall) rather than wake the writer goroutine and have
			// the waiters woken by it: the goroutine that releases (the
			// zone's writer of package dnsupdate, at c=1 the request's
			// own) is then the one that waits, and finds its entries
			// written.
			if write {
				l.flush(false)
			}
		})
	}
}

// Pending is an Enqueue's entries on their way to the disk.
type Pending struct {
	entries []Entry
	b       *batch
	err     error
}

// Wait returns once the entries are written (and fsynced, with
// Options.SyncEach), with the entries as recorded.
func (p *Pending) Wait() ([]Entry, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.b == nil {
		return nil, nil
	}
	<-p.b.done
	if p.b.err != nil {
		return nil, p.b.err
	}
	return p.entries, nil
}

// Enqueue gives the entries their Seqs, in the order of the calls, and
// hands them to the writer without waiting: Wait waits for them. A
// caller that must order entries with something else (the zone's writer
// of package dnsupdate orders them as named applied the changes) enqueues
// in that order and waits outside.
func (l *Log) Enqueue(es ...Entry) *Pending {
	return l.enqueue(es, false)
}

// EnqueueChanges is Enqueue for change entries that two recorders of the
// process may both find: the writer that made a change through the API,
// and the catch-up that reads named's IXFR when named's NOTIFY of the
// change comes (a zone has a writer per front end module, so the two need
// not take turns). Whether each entry is recorded is decided under the
// lock of the enqueue, from the zone's last serial, so a change is
// recorded once, by whichever comes first:
//   - an external entry with both serials only when the zone's last serial
//     is its SerialBefore (or the history has none of the zone): otherwise
//     the API recorded that change already;
//   - an API entry with both serials (and a change of serial) unless its
//     SerialAfter is that of one of the zone's latest external entries:
//     the catch-up recorded the change first.
//
// The Pending holds the entries recorded.
func (l *Log) EnqueueChanges(es ...Entry) *Pending {
	return l.enqueue(es, true)
}

func (l *Log) enqueue(es []Entry, once bool) *Pending {
	if len(es) == 0 {
		return &Pending{}
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return &Pending{err: ErrClosed}
	}
	if once {
		if es = l.unrecorded(es); len(es) == 0 {
			l.mu.Unlock()
			return &Pending{}
		}
	}
	out := make([]Entry, len(es))
	now := l.opts.Now()
	// Room for a small entry's line each (a one-RRset change's is
	// 300-400 bytes): the lines are appended without growing the
	// buffer again and again.
	buf := make([]byte, 0, 512*len(es))
	seq := l.last
	for i, e := range es {
		e = e.Recorded(nil)
		seq++
		e.Seq = seq
		e.ID = strconv.FormatUint(e.Seq, 10)
		if e.Time.IsZero() {
			e.Time = now
		}
		// The entry's JSON (json.Marshal's bytes), appended to the
		// batch's lines. The line kept with the entry shares their array
		// when it is its own (one entry), else it is a copy: a kept entry
		// does not keep every line enqueued with it alive.
		start := len(buf)
		var err error
		if buf, e, err = appendLine(buf, e); err != nil {
			// Refused before anything is taken: no Seq is used and no
			// batch is begun (an empty one would reach flush).
			l.mu.Unlock()
			return &Pending{err: fmt.Errorf("history: entry of zone %q at %s not recorded: %w", e.Zone, e.Time.Format(time.RFC3339Nano), err)}
		}
		line := buf[start:len(buf):len(buf)]
		buf = append(buf, '\n')
		if len(line) <= maxKeptJSON {
			if len(es) > 1 {
				line = bytes.Clone(line)
			}
			e = e.Recorded(line)
		}
		out[i] = e
	}
	l.last = seq
	b := l.cur
	if b == nil {
		b = &batch{done: make(chan struct{})}
		l.cur = b
	}
	if b.buf == nil {
		// The batch's first lines: its buffer is theirs (later ones
		// are appended after them; the kept lines end where they do).
		b.buf = buf
	} else {
		b.buf = append(b.buf, buf...)
	}
	b.entries = append(b.entries, out...)
	for _, e := range out {
		noteSerial(l.zones, l.extRecent, l.key(e.Zone, e.View), e)
		l.noteLife(e)
	}
	// While a Hold is not released the writer would find nothing to
	// write: the last release wakes it.
	held := l.holds > 0
	l.mu.Unlock()
	if !held {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
	return &Pending{entries: out, b: b}
}

// writer writes and syncs the batches, one at a time, in order.
func (l *Log) writer() {
	defer close(l.done)
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-l.kick:
		case <-tick.C:
			l.mu.Lock()
			l.prune()
			l.mu.Unlock()
			continue
		case <-l.stop:
			l.flush(true) // what came before Close, held or not
			return
		}
		l.flush(false)
	}
}

// flush writes the pending batch, if any; while a Hold is not released,
// only when forced (at Close).
func (l *Log) flush(force bool) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	b := l.cur
	if b == nil || (l.holds > 0 && !force) {
		l.mu.Unlock()
		return
	}
	l.cur = nil
	if len(b.entries) == 0 { // never made (enqueue adds entries at once)
		l.mu.Unlock()
		close(b.done)
		return
	}
	if a := l.segs[len(l.segs)-1]; a.size >= l.opts.SegmentSize && a.last >= a.first {
		// Rotate: the batch begins the next segment.
		first := b.entries[0].Seq
		if l.saveState(first-1) == nil && l.newSegment(first) == nil {
			l.prune()
		}
	}
	f := l.f
	a := &l.segs[len(l.segs)-1]
	start := a.size
	l.mu.Unlock()

	err := l.write(f, b.buf)
	if err == nil && l.opts.SyncEach {
		err = f.Sync()
		l.syncs.Add(1)
	}

	l.mu.Lock()
	if err != nil {
		// Nothing of the batch counts: cut what was written, so that the
		// next batch follows the last good line. Its Seqs stay unused.
		_ = f.Truncate(start)
		_, _ = f.Seek(start, 0)
		b.err = fmt.Errorf("history: writing %s: %w", a.path, err)
		l.writeFailed(b.err, b.entries)
	} else {
		a.size += int64(len(b.buf))
		last := b.entries[len(b.entries)-1]
		a.last, a.newest = last.Seq, last.Time
		l.durable = last.Seq
		l.writeErr = nil
		l.wrote(b.entries)
		for _, e := range b.entries {
			l.counts[[2]string{e.Type, e.Source}]++
		}
		l.tail = append(l.tail, b.entries...)
		if len(l.tail) > 2*tailEntries {
			l.tail = append(l.tail[:0:0], l.tail[len(l.tail)-tailEntries:]...)
		}
		close(l.changed)
		l.changed = make(chan struct{})
	}
	l.mu.Unlock()
	close(b.done)
	if !l.opts.SyncEach && err == nil {
		select {
		case l.syncKick <- struct{}{}:
		default:
		}
	}
}

// syncer fsyncs the active segment after writes (without SyncEach):
// Options.SyncDelay after a write, one fsync for all the writes made
// meanwhile, until Close (which fsyncs what is left).
func (l *Log) syncer() {
	defer close(l.syncDone)
	var delay *time.Timer
	if l.opts.SyncDelay > 0 {
		delay = time.NewTimer(l.opts.SyncDelay)
		delay.Stop()
		defer delay.Stop()
	}
	for {
		select {
		case <-l.syncKick:
		case <-l.stop:
			return
		}
		if delay != nil {
			delay.Reset(l.opts.SyncDelay)
			select {
			case <-delay.C:
			case <-l.stop:
				return
			}
		}
		// The writes made until now are covered by this fsync: a kick
		// they left is spent.
		select {
		case <-l.syncKick:
		default:
		}
		l.mu.Lock()
		f := l.f
		l.mu.Unlock()
		// A rotated file was synced before it was closed.
		if err := l.syncFile(f); err != nil {
			l.syncFailed(fmt.Errorf("history: fsync of %s: %w", f.Name(), err))
			continue
		}
		l.syncs.Add(1)
	}
}

// Syncs returns how many fsyncs of written entries the Log made since it
// was opened (for metrics and tests).
func (l *Log) Syncs() uint64 { return l.syncs.Load() }

// Last returns the highest Seq written (durable); 0 when the log has
// never had an entry.
func (l *Log) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.durable
}

// First returns the lowest Seq the log still holds (retention drops
// older ones); Last()+1 when it holds none.
func (l *Log) First() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.segs {
		if s.last >= s.first {
			return s.first
		}
	}
	return l.durable + 1
}

// Size returns the bytes of the history on disk and the number of
// segment files.
func (l *Log) Size() (bytes int64, segments int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.segs {
		bytes += s.size
	}
	return bytes, len(l.segs)
}

// Count is how many entries of a type and source a Log wrote since it
// was opened.
type Count struct {
	Type, Source string
	N            uint64
}

// Counts returns how many entries the Log wrote since it was opened, by
// type and source (for metrics).
func (l *Log) Counts() []Count {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Count, 0, len(l.counts))
	for k, n := range l.counts {
		out = append(out, Count{Type: k[0], Source: k[1], N: n})
	}
	return out
}

// Dir returns the directory of the Log.
func (l *Log) Dir() string { return l.dir }

// Changed returns a channel closed at the next Append that made entries
// durable: take it, Read, and wait on it for more.
func (l *Log) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// Close writes what was appended before it, stops the writer and
// releases the directory's lock. Appends after Close fail with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	<-l.syncDone
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		l.markClosed()
	}
	l.lock.Close() // drops the flock
	return err
}
