package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
	// them at once, concurrently with the next appends: an operating
	// system crash or a power loss may then lose the entries of the last
	// moments, which the zone service records again from named's journal
	// (IXFR) at start, as external changes.
	SyncEach bool
	// Now returns the time (tests). Default time.Now.
	Now func() time.Time
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

	mu      sync.Mutex
	segs    []segment            // oldest first; the last is the active one
	f       *os.File             // the active segment, open for appending
	last    uint64               // the highest Seq assigned
	durable uint64               // the highest Seq written and synced
	cur     *batch               // the appends waiting for the next fsync
	tail    []Entry              // the newest durable entries, oldest first
	serials map[string]uint32    // by zoneKey: the serial after the zone's last entry
	counts  map[[2]string]uint64 // entries written by this Log, by type and source
	extLast map[string]bool      // by zoneKey: the zone's last serial came from an external entry
	changed chan struct{}
	closed  bool

	kick chan struct{}
	stop chan struct{}
	done chan struct{}

	// syncKick wakes the syncer (without SyncEach); syncDone is closed
	// when it stopped.
	syncKick chan struct{}
	syncDone chan struct{}
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
	l := &Log{dir: dir, opts: opts, lock: lf, serials: map[string]uint32{}, counts: map[[2]string]uint64{}, extLast: map[string]bool{}, changed: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.load(); err != nil {
		lf.Close()
		return nil, err
	}
	l.prune()
	l.syncKick, l.syncDone = make(chan struct{}, 1), make(chan struct{})
	go l.writer()
	go l.syncer()
	return l, nil
}

// load reads the segments, repairs the active one's torn tail and fills
// the in-memory tail.
func (l *Log) load() error {
	names, err := os.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, de := range names {
		first, ok := segmentFirst(de.Name())
		if !ok {
			continue
		}
		l.segs = append(l.segs, segment{first: first, last: first - 1, path: filepath.Join(l.dir, de.Name())})
	}
	// ReadDir sorts by name and names are zero-padded: oldest first.
	if len(l.segs) == 0 {
		return l.newSegment(1)
	}
	upto := l.loadState()
	for i := range l.segs {
		s := &l.segs[i]
		active := i == len(l.segs)-1
		var recent []Entry
		end, err := scan(s.path, 0, func(e Entry, _ int64) bool {
			s.last, s.newest = e.Seq, e.Time
			if e.Seq > upto {
				l.noteSerial(e)
			}
			if active {
				recent = append(recent, e)
				if len(recent) > 2*tailEntries {
					recent = append(recent[:0], recent[len(recent)-tailEntries:]...)
				}
			}
			return true
		})
		if err != nil {
			return err
		}
		s.size = end
		if active {
			if len(recent) > tailEntries {
				recent = recent[len(recent)-tailEntries:]
			}
			l.tail = recent
		}
	}
	a := &l.segs[len(l.segs)-1]
	f, err := os.OpenFile(a.path, os.O_RDWR, 0o640)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	// A torn or garbled last line is what a crash during a write leaves:
	// no append of it returned, so it is cut off.
	if fi, err := f.Stat(); err == nil && fi.Size() != a.size {
		if err := f.Truncate(a.size); err != nil {
			f.Close()
			return fmt.Errorf("history: repairing %s: %w", a.path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("history: repairing %s: %w", a.path, err)
		}
	}
	if _, err := f.Seek(a.size, 0); err != nil {
		f.Close()
		return fmt.Errorf("history: %w", err)
	}
	l.f = f
	l.last, l.durable = a.last, a.last
	return nil
}

// state is what the log remembers of the entries before a segment, so
// that retention can drop them: each zone's last serial.
type state struct {
	// Upto is the last Seq the state covers.
	Upto uint64 `json:"upto"`
	// Serials are the zones' serials (by zoneKey) after their last
	// entry up to Upto.
	Serials map[string]uint32 `json:"serials"`
}

const stateFile = "state.json"

// loadState reads the state file into l.serials and returns its Upto.
func (l *Log) loadState() uint64 {
	b, err := os.ReadFile(filepath.Join(l.dir, stateFile))
	if err != nil {
		return 0
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return 0
	}
	for k, v := range st.Serials {
		l.serials[k] = v
	}
	return st.Upto
}

// saveState writes the state, covering the entries up to upto,
// atomically. l.mu is held. The serials may include later entries (those
// enqueued): Open notes the entries after upto again, in order, which
// gives the same result.
func (l *Log) saveState(upto uint64) error {
	b, err := json.Marshal(state{Upto: upto, Serials: l.serials})
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, stateFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(l.dir, stateFile))
	}
	return err
}

// segmentFirst parses a segment's file name.
func segmentFirst(name string) (uint64, bool) {
	base, ok := cutSuffix(name, ".jsonl")
	if !ok || len(base) != 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(base, 10, 64)
	return n, err == nil && n > 0
}

func cutSuffix(s, suf string) (string, bool) {
	if len(s) < len(suf) || s[len(s)-len(suf):] != suf {
		return s, false
	}
	return s[:len(s)-len(suf)], true
}

// newSegment begins a segment whose first entry will be first, and makes
// it the active one.
func (l *Log) newSegment(first uint64) error {
	path := filepath.Join(l.dir, fmt.Sprintf("%020d.jsonl", first))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := syncDir(l.dir); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		_ = l.f.Sync()
		l.f.Close()
	}
	l.f = f
	l.segs = append(l.segs, segment{first: first, last: first - 1, path: path})
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("history: syncing %s: %w", dir, err)
	}
	return nil
}

// Append records the entries, in order, and returns them as recorded
// (Seq, ID and, where it was zero, Time set). It returns once they are
// written to the file (and fsynced, with Options.SyncEach); concurrent
// appends share one write and one fsync.
func (l *Log) Append(es ...Entry) ([]Entry, error) {
	return l.Enqueue(es...).Wait()
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
	if len(es) == 0 {
		return &Pending{}
	}
	out := make([]Entry, len(es))
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return &Pending{err: ErrClosed}
	}
	b := l.cur
	if b == nil {
		b = &batch{done: make(chan struct{})}
		l.cur = b
	}
	now := l.opts.Now()
	var buf []byte
	seq := l.last
	for i, e := range es {
		seq++
		e.Seq = seq
		e.ID = strconv.FormatUint(e.Seq, 10)
		if e.Time.IsZero() {
			e.Time = now
		}
		line, err := json.Marshal(e)
		if err != nil {
			l.mu.Unlock()
			return &Pending{err: fmt.Errorf("history: %w", err)}
		}
		buf = append(append(buf, line...), '\n')
		out[i] = e
	}
	l.last = seq
	b.buf = append(b.buf, buf...)
	b.entries = append(b.entries, out...)
	for _, e := range out {
		l.noteSerial(e)
	}
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return &Pending{entries: out, b: b}
}

// zoneKey is a zone's key in the serial map.
func zoneKey(zone, view string) string {
	return strings.ToLower(strings.TrimSuffix(zone, ".")) + "/" + view
}

// noteSerial remembers the zone's serial after e. l.mu is held.
func (l *Log) noteSerial(e Entry) {
	k := zoneKey(e.Zone, e.View)
	switch {
	case e.Type == ZoneDeleted:
		delete(l.serials, k)
		delete(l.extLast, k)
	case e.SerialAfter != nil:
		l.serials[k] = *e.SerialAfter
		l.extLast[k] = e.Source == SourceExternal
	}
}

// Baseline sets the zone's last serial when the history has none (a zone
// managed before the history was on, or whose entries retention dropped
// before state.json kept them), so that the changes after it are
// recorded. It is kept in memory only: the next entry of the zone makes
// it durable.
func (l *Log) Baseline(zone, view string, serial uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := zoneKey(zone, view)
	if _, ok := l.serials[k]; !ok {
		l.serials[k] = serial
	}
}

// RecordedExternally reports whether the zone's last serial is serial and
// came from an external entry: a change made through another updater of
// the process (the external-dns webhook's) whose NOTIFY was handled before
// its own entry was enqueued. That entry is then not enqueued again.
func (l *Log) RecordedExternally(zone, view string, serial uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := zoneKey(zone, view)
	s, ok := l.serials[k]
	return ok && s == serial && l.extLast[k]
}

// LastSerial returns the zone's serial after its last entry appended (or
// enqueued) that has one; ok is false when it has none, or the zone's
// last entry is its deletion.
func (l *Log) LastSerial(zone, view string) (serial uint32, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	serial, ok = l.serials[zoneKey(zone, view)]
	return serial, ok
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
			l.flush() // what came before Close
			return
		}
		l.flush()
	}
}

// flush writes the pending batch, if any.
func (l *Log) flush() {
	l.mu.Lock()
	b := l.cur
	l.cur = nil
	if b == nil {
		l.mu.Unlock()
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

	_, err := f.Write(b.buf)
	if err == nil && l.opts.SyncEach {
		err = f.Sync()
	}

	l.mu.Lock()
	if err != nil {
		// Nothing of the batch counts: cut what was written, so that the
		// next batch follows the last good line. Its Seqs stay unused.
		_ = f.Truncate(start)
		_, _ = f.Seek(start, 0)
		b.err = fmt.Errorf("history: writing %s: %w", a.path, err)
	} else {
		a.size += int64(len(b.buf))
		last := b.entries[len(b.entries)-1]
		a.last, a.newest = last.Seq, last.Time
		l.durable = last.Seq
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

// syncer fsyncs the active segment after writes (without SyncEach), one
// fsync for all the writes made while the previous one ran, until Close.
func (l *Log) syncer() {
	defer close(l.syncDone)
	for {
		select {
		case <-l.syncKick:
		case <-l.stop:
			return
		}
		l.mu.Lock()
		f := l.f
		l.mu.Unlock()
		_ = f.Sync() // a rotated file was synced before it was closed
	}
}

// prune drops the segments the retention no longer keeps (never the
// active one). l.mu is held.
func (l *Log) prune() {
	now := l.opts.Now()
	var total int64
	for _, s := range l.segs {
		total += s.size
	}
	for len(l.segs) > 1 {
		s := l.segs[0]
		old := l.opts.MaxAge > 0 && s.last >= s.first && now.Sub(s.newest) > l.opts.MaxAge
		big := l.opts.MaxSize > 0 && total > l.opts.MaxSize
		empty := s.last < s.first
		if !old && !big && !empty {
			break
		}
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return
		}
		total -= s.size
		l.segs = l.segs[1:]
		keep := l.segs[0].first
		i := 0
		for i < len(l.tail) && l.tail[i].Seq < keep {
			i++
		}
		l.tail = l.tail[i:]
	}
	// An active segment all of whose entries are too old is closed, so
	// that the next prune drops it.
	a := l.segs[len(l.segs)-1]
	if l.opts.MaxAge > 0 && a.last >= a.first && now.Sub(a.newest) > l.opts.MaxAge && l.cur == nil && l.last == l.durable && l.saveState(l.last) == nil {
		if l.newSegment(l.last+1) == nil {
			l.prune()
		}
	}
}

// SetRetention changes the retention (as Options.MaxAge and MaxSize,
// zero meaning the default) and applies it.
func (l *Log) SetRetention(maxAge time.Duration, maxSize int64) {
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	if maxSize == 0 {
		maxSize = DefaultMaxSize
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opts.MaxAge, l.opts.MaxSize = maxAge, maxSize
	l.prune()
}

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
	l.lock.Close() // drops the flock
	return err
}
