package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	segs    []segment // oldest first; the last is the active one
	f       *os.File  // the active segment, open for appending
	last    uint64    // the highest Seq assigned
	durable uint64    // the highest Seq written and synced
	cur     *batch    // the appends waiting for the next fsync
	tail    []Entry   // the newest durable entries, oldest first
	changed chan struct{}
	closed  bool

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
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
	l := &Log{dir: dir, opts: opts, lock: lf, changed: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := l.load(); err != nil {
		lf.Close()
		return nil, err
	}
	l.prune()
	go l.writer()
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
	for i := range l.segs {
		s := &l.segs[i]
		active := i == len(l.segs)-1
		var recent []Entry
		end, err := scan(s.path, 0, func(e Entry, _ int64) bool {
			s.last, s.newest = e.Seq, e.Time
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

// Append records the entries durably, in order, and returns them as
// recorded (Seq, ID and, where it was zero, Time set). It returns once
// they are written and synced; concurrent appends share one fsync.
func (l *Log) Append(es ...Entry) ([]Entry, error) {
	if len(es) == 0 {
		return nil, nil
	}
	out := make([]Entry, len(es))
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrClosed
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
			return nil, fmt.Errorf("history: %w", err)
		}
		buf = append(append(buf, line...), '\n')
		out[i] = e
	}
	l.last = seq
	b.buf = append(b.buf, buf...)
	b.entries = append(b.entries, out...)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	<-b.done
	if b.err != nil {
		return nil, b.err
	}
	return out, nil
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
	f := l.f
	a := &l.segs[len(l.segs)-1]
	start := a.size
	l.mu.Unlock()

	_, err := f.Write(b.buf)
	if err == nil {
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
		l.tail = append(l.tail, b.entries...)
		if len(l.tail) > 2*tailEntries {
			l.tail = append(l.tail[:0:0], l.tail[len(l.tail)-tailEntries:]...)
		}
		close(l.changed)
		l.changed = make(chan struct{})
		if a.size >= l.opts.SegmentSize {
			if err := l.newSegment(l.last + 1); err == nil {
				l.prune()
			}
		}
	}
	l.mu.Unlock()
	close(b.done)
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
	if l.opts.MaxAge > 0 && a.last >= a.first && now.Sub(a.newest) > l.opts.MaxAge && l.cur == nil {
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
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.f.Close()
	l.lock.Close() // drops the flock
	return err
}
