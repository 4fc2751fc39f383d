package zonestore

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Entry is one zone of the index (zonemodel.IndexEntry).
type Entry = zonemodel.IndexEntry

// logRecord is one line of <dir>/.zoneapi/index.log.
type logRecord struct {
	Op      string    `json:"op"` // "put", "del", "intent", "done" or "touch"
	Name    string    `json:"name"`
	Type    string    `json:"type,omitempty"`
	Created time.Time `json:"created,omitzero"`
	FP      string    `json:"fp,omitempty"`
	File    string    `json:"file,omitempty"`
	// Intent is set on "intent" lines (see intent.go).
	Intent *Intent `json:"intent,omitempty"`
	// By is the Store instance that wrote a "touch" line (index.self).
	By string `json:"by,omitempty"`
}

// index is the in-memory view of the append-only index log. The log is
// replayed on first use; before every operation its identity (device and
// inode) and size are checked so that appends and compactions by other
// processes are picked up, reading only the new tail. Writers serialise on
// an flock of index.lock and append whole lines with O_APPEND.
type index struct {
	mu       sync.Mutex
	logPath  string
	lockPath string
	// self names this instance on its touches, which it does not
	// report (its callers dropped what the touch tells already).
	self       string
	compactMin int // no compaction below this many log lines
	// wrote holds the zones this instance wrote a record of (an entry or
	// an intent) since their lock was last taken (Lock): their touch is
	// redundant, the record tells the other processes already, or (an
	// intent that came to nothing) nothing of the zone changed.
	wrote map[string]bool

	// lockf is index.lock, kept open (lock).
	lockf *os.File

	f     *os.File    // the log, O_RDWR|O_APPEND
	fi    os.FileInfo // identity of f
	off   int64       // bytes consumed: always just after a '\n'
	lines int         // lines consumed, valid or not
	// discarded counts the bytes of torn lines this process removed.
	discarded int64
	live      map[string]kept
	// types holds each type's string once, shared by the kept entries.
	types map[string]string
	// pending holds the intents not yet marked done, by zone.
	pending map[string]Intent
	all     sortedSet
	byType  map[string]*sortedSet
	// compactErr is the last compaction's failure (nil once one
	// succeeds); compactAgain is the line count from which the next
	// compaction is tried after a failure.
	compactErr   error
	compactAgain int
	// seq counts the entries applied (put or del), feed keeps the last
	// keepChanges of them (feed[i] is change feedStart+i+1), and floor
	// is the seq after the last replay from the start: a reader of
	// ChangesSince before it must read the whole index again.
	seq, feedStart, floor uint64
	feed                  []Change

	// Group commit: writers queue their records; one of them (the one
	// flushing) appends every queued record and fsyncs them together,
	// without x.mu during the fsync, so that readers and other writers
	// go on meanwhile. Until the fsync returns, refresh consumes nothing
	// past syncFrom: what is not durable is never read back.
	queue    []*queuedWrite
	flushing bool
	unsynced bool
	syncFrom int64
	idle     *sync.Cond // on mu: a flush ended
	flushes  int        // fsyncs of appended records (tests)
}

// keepChanges is how many index changes ChangesSince can report.
const keepChanges = 4096

// Change is one change of the index: an entry put, or removed (Deleted,
// with its name only), or a zone touched (Touched, with its name only:
// its entry did not change, its state in named may have; Touch).
type Change struct {
	Entry   Entry
	Deleted bool
	Touched bool
}

func (x *index) init(meta string) {
	x.logPath = filepath.Join(meta, "index.log")
	x.lockPath = filepath.Join(meta, "index.lock")
	x.compactMin = 256
}

// reset forgets the in-memory state and closes the log.
func (x *index) reset() {
	if x.f != nil {
		x.f.Close()
	}
	x.f, x.fi, x.off, x.lines = nil, nil, 0, 0
	x.live = map[string]kept{}
	x.pending = map[string]Intent{}
	x.all = sortedSet{}
	x.byType = map[string]*sortedSet{}
	x.feed, x.feedStart = nil, x.seq
}

// refresh brings the in-memory state up to date with the log. The caller
// holds x.mu. It returns the log's current size.
func (x *index) refresh() (int64, error) {
	st, err := os.Stat(x.logPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("reading zone index: %w", err)
	}
	if x.f == nil || err != nil || !os.SameFile(st, x.fi) || st.Size() < x.off {
		// First use, or the log was replaced (compaction), removed or
		// truncated: replay it from the start.
		x.reset()
		defer func() { x.floor = x.seq }()
		f, err := os.OpenFile(x.logPath, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 0, fmt.Errorf("opening zone index: %w", err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("opening zone index: %w", err)
		}
		x.f, x.fi, st = f, fi, fi
	}
	size := st.Size()
	if x.unsynced && size > x.syncFrom {
		size = x.syncFrom
	}
	if size == x.off {
		return size, nil
	}
	buf := make([]byte, size-x.off)
	if _, err := x.f.ReadAt(buf, x.off); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("reading zone index: %w", err)
	}
	// Consume complete lines only: a line without its '\n' is being written
	// by another process, or was torn by a crash or a failed write (and the
	// next writer discards it).
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return size, nil
	}
	for line := range bytes.SplitSeq(buf[:end], []byte{'\n'}) {
		x.lines++
		x.applyLine(line)
	}
	x.off += int64(end + 1)
	return size, nil
}

// applyLine applies one log line; invalid lines are ignored.
func (x *index) applyLine(line []byte) {
	var r logRecord
	if len(line) == 0 || json.Unmarshal(line, &r) != nil {
		return
	}
	x.applyRecord(r)
}

// applyRecord applies one record, as read from its log line; records
// without a name are ignored.
func (x *index) applyRecord(r logRecord) {
	if r.Name == "" {
		return
	}
	switch r.Op {
	case "put":
		x.apply(Entry{Name: r.Name, Type: r.Type, Created: r.Created, Fingerprint: r.FP, File: r.File}, false)
	case "del":
		x.apply(Entry{Name: r.Name}, true)
	case "intent":
		if r.Intent != nil {
			in := *r.Intent
			in.Name = r.Name
			x.pending[r.Name] = in
		}
	case "done":
		delete(x.pending, r.Name)
	case "touch":
		if r.By != x.self {
			x.record(Change{Entry: Entry{Name: r.Name}, Touched: true})
		}
	}
}

// record adds a change to the feed (ChangesSince).
func (x *index) record(ch Change) {
	x.seq++
	x.feed = append(x.feed, ch)
	if len(x.feed) > 2*keepChanges {
		n := len(x.feed) - keepChanges
		x.feed = append(x.feed[:0:0], x.feed[n:]...)
		x.feedStart += uint64(n)
	}
}

// kept is what the index keeps in memory of a zone's entry, by its name
// (live's key): 64 bytes where an Entry is 88, without the entry's own
// copies of its type and fingerprint (issue 27: the index was some 19
// MB of Caddy's heap at 100,000 zones). The fingerprint a create made,
// 32 lower-case hex digits, is kept as its 16 bytes in fp; any other (a
// keyed request's, with its ".<key>"; all zeros) and a file name are
// kept in rare, nil for the others (an entry without either has neither).
type kept struct {
	typ     string // the type, shared by the entries of that type (types)
	created time.Time
	fp      [16]byte
	rare    *rareFields
}

type rareFields struct{ fp, file string }

// keep returns what the index keeps of e.
func (x *index) keep(e Entry) kept {
	typ, ok := x.types[e.Type]
	if !ok {
		if x.types == nil {
			x.types = map[string]string{}
		}
		typ = strings.Clone(e.Type)
		x.types[typ] = typ
	}
	k := kept{typ: typ, created: e.Created}
	if b, err := hex.DecodeString(e.Fingerprint); e.File == "" && err == nil && len(b) == len(k.fp) && [16]byte(b) != [16]byte{} && hex.EncodeToString(b) == e.Fingerprint {
		copy(k.fp[:], b)
	} else if e.Fingerprint != "" || e.File != "" {
		k.rare = &rareFields{fp: e.Fingerprint, file: e.File}
	}
	return k
}

// entry is the entry of the zone of that name kept as k.
func (k *kept) entry(name string) Entry {
	e := Entry{Name: name, Type: k.typ, Created: k.created}
	switch {
	case k.rare != nil:
		e.Fingerprint, e.File = k.rare.fp, k.rare.file
	case k.fp != [16]byte{}:
		e.Fingerprint = hex.EncodeToString(k.fp[:])
	}
	return e
}

// apply changes the in-memory state.
func (x *index) apply(e Entry, del bool) {
	x.record(Change{Entry: e, Deleted: del})
	old, had := x.live[e.Name]
	if had {
		if ts := x.byType[old.typ]; ts != nil {
			ts.remove(e.Name)
		}
	}
	if del {
		if had {
			delete(x.live, e.Name)
			x.all.remove(e.Name)
		}
		return
	}
	x.live[e.Name] = x.keep(e)
	x.all.insert(e.Name)
	ts := x.byType[e.Type]
	if ts == nil {
		ts = &sortedSet{}
		x.byType[e.Type] = ts
	}
	ts.insert(e.Name)
}

// Put adds or replaces the index entry of a zone. A zero Created is set to
// the current time.
func (s *Store) Put(e Entry) error {
	if err := checkZone(e.Name); err != nil {
		return fmt.Errorf("indexing zone: %w", err)
	}
	if msg := zonemodel.CheckIdentifier(e.Type); msg != "" {
		return fmt.Errorf("indexing zone %s: type %s", e.Name, msg)
	}
	if e.Created.IsZero() {
		e.Created = time.Now()
	}
	e.Created = e.Created.UTC()
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.write([]logRecord{{Op: "put", Name: e.Name, Type: e.Type, Created: e.Created, FP: e.Fingerprint, File: e.File}})
}

// Remove deletes the index entry of a zone; removing an absent zone is not
// an error.
func (s *Store) Remove(name string) error {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return err
	}
	if _, ok := x.live[name]; !ok {
		return nil
	}
	return x.write([]logRecord{{Op: "del", Name: name}})
}

// Touch records in the log that the zone's state in named may have
// changed (a freeze, thaw, reload or modzone under its lock) though its
// entry did not (after a record of the zone this instance wrote since the
// zone's lock was taken, it writes nothing: see index.wrote): ChangesSince reports it (Touched) to every other Store
// on the directory (not this one), whose processes' zone caches then ask
// named again. The entries
// stay as they are, and a compaction drops the record. It is not
// fsynced (a touch lost in a crash loses nothing: every cache is gone
// with the processes), unless records that must be are written with it.
func (s *Store) Touch(name string) error {
	if err := checkZone(name); err != nil {
		return fmt.Errorf("touching zone: %w", err)
	}
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.wrote[name] {
		delete(x.wrote, name)
		return nil
	}
	return x.write([]logRecord{{Op: "touch", Name: name, By: x.self}})
}

// Get returns the index entry of a zone and whether it exists.
func (s *Store) Get(name string) (Entry, bool, error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return Entry{}, false, err
	}
	k, ok := x.live[name]
	if !ok {
		return Entry{}, false, nil
	}
	return k.entry(name), true, nil
}

// Known reports whether the index had the zone when it was last read,
// without reading what other processes appended since (Get does): a
// hint for a caller that asks for many zones at once, such as the
// inventory's classification, for which a stale answer costs only a
// question to named.
func (s *Store) Known(name string) bool {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.f == nil {
		_, _ = x.refresh()
	}
	_, ok := x.live[name]
	return ok
}

// List returns up to limit entries (all when limit <= 0) with Name > cursor,
// sorted by name and filtered by type when typ != "". next is the cursor of
// the following page, "" when there is none; total is the number of entries
// of type typ (of any type when typ is "").
func (s *Store) List(typ, cursor string, limit int) (entries []Entry, next string, total int, err error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return nil, "", 0, err
	}
	set := &x.all
	if typ != "" {
		set = x.byType[typ]
		if set == nil {
			return []Entry{}, "", 0, nil
		}
	}
	entries = []Entry{}
	more := false
	set.ascend(cursor, func(name string) bool {
		if limit > 0 && len(entries) == limit {
			more = true
			return false
		}
		k := x.live[name]
		entries = append(entries, k.entry(name))
		return true
	})
	if more {
		next = entries[len(entries)-1].Name
	}
	return entries, next, set.n, nil
}

// ChangesSince returns the changes of the index after the one numbered
// seq (0: from the start) and the number of the last one, reading what
// other processes appended first. ok is false when they are not all kept
// (too many, or the index was read again from its start): the caller
// reads the whole index (List) instead, and the changes after the number
// returned next time. A change may be reported again after a List that
// showed it already: applying one is idempotent.
func (s *Store) ChangesSince(seq uint64) (changes []Change, last uint64, ok bool, err error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := x.refresh(); err != nil {
		return nil, 0, false, err
	}
	if seq < x.floor || seq < x.feedStart || seq > x.seq {
		return nil, x.seq, false, nil
	}
	return slices.Clone(x.feed[seq-x.feedStart:]), x.seq, true, nil
}

// Counts returns the number of indexed zones per type. After an error
// reading the index it returns the last known counts.
func (s *Store) Counts() map[string]int {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	_, _ = x.refresh()
	out := make(map[string]int, len(x.byType))
	for t, set := range x.byType {
		if set.n > 0 {
			out[t] = set.n
		}
	}
	return out
}

// putMany writes many entries with one append and one fsync (bulk loads in
// tests and benchmarks).
func (s *Store) putMany(es []Entry) error {
	recs := make([]logRecord, len(es))
	for i, e := range es {
		if err := checkZone(e.Name); err != nil {
			return err
		}
		recs[i] = logRecord{Op: "put", Name: e.Name, Type: e.Type, Created: e.Created.UTC()}
	}
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.write(recs)
}

// chunkSize bounds the chunks of a sortedSet: inserts and removals move at
// most 2*chunkSize strings, so their cost does not grow with the set.
const chunkSize = 128

// sortedSet is a set of strings kept in order in bounded chunks.
type sortedSet struct {
	chunks [][]string
	n      int
}

// chunkFor returns the index of the first chunk whose last element is >= s,
// or len(chunks).
func (t *sortedSet) chunkFor(s string) int {
	return sort.Search(len(t.chunks), func(i int) bool {
		c := t.chunks[i]
		return c[len(c)-1] >= s
	})
}

func (t *sortedSet) insert(s string) {
	if len(t.chunks) == 0 {
		t.chunks = [][]string{{s}}
		t.n = 1
		return
	}
	ci := t.chunkFor(s)
	if ci == len(t.chunks) {
		ci--
	}
	c := t.chunks[ci]
	i, found := slices.BinarySearch(c, s)
	if found {
		return
	}
	c = slices.Insert(c, i, s)
	t.n++
	if len(c) > 2*chunkSize {
		left := slices.Clone(c[:chunkSize])
		right := slices.Clone(c[chunkSize:])
		t.chunks[ci] = left
		t.chunks = slices.Insert(t.chunks, ci+1, right)
		return
	}
	t.chunks[ci] = c
}

func (t *sortedSet) remove(s string) {
	ci := t.chunkFor(s)
	if ci == len(t.chunks) {
		return
	}
	c := t.chunks[ci]
	i, found := slices.BinarySearch(c, s)
	if !found {
		return
	}
	c = slices.Delete(c, i, i+1)
	t.n--
	if len(c) == 0 {
		t.chunks = slices.Delete(t.chunks, ci, ci+1)
		return
	}
	t.chunks[ci] = c
}

// ascend calls fn for each element > after, in order, until fn returns false.
func (t *sortedSet) ascend(after string, fn func(string) bool) {
	ci := sort.Search(len(t.chunks), func(i int) bool {
		c := t.chunks[i]
		return strings.Compare(c[len(c)-1], after) > 0
	})
	for ; ci < len(t.chunks); ci++ {
		c := t.chunks[ci]
		i := sort.Search(len(c), func(j int) bool { return c[j] > after })
		for ; i < len(c); i++ {
			if !fn(c[i]) {
				return
			}
		}
	}
}
