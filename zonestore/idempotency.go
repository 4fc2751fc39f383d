package zonestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// The bounds of the Idempotency-Key records of one zone directory: by
// age and by size, never by a count per identity (an operator who
// provisions tens of thousands of zones a day with a key on each is
// never refused).
const (
	// IdempotencyTTL is how long a key is remembered after its first
	// use.
	IdempotencyTTL = 24 * time.Hour
	// MaxIdempotencyBytes bounds the size of the live records (their
	// lines in the log, which is rewritten without the others). Past it
	// the oldest records are dropped, down to three quarters of it; a
	// key is never refused. The records are also held in memory, so
	// this bounds that too. A create's record takes about 500 bytes: 32
	// MiB holds some 60,000 keys.
	MaxIdempotencyBytes = 32 << 20
	// maxIdempotencyBody bounds a remembered answer's body.
	maxIdempotencyBody = 16 << 10
	// minIdempotencyCompact is the log size below which it is not
	// compacted.
	minIdempotencyCompact = 1 << 20
)

// IdempotencyRecord is what the zone API remembers of a request sent with
// an Idempotency-Key: which request (its fingerprint) and, once known,
// its final answer. Status 0 means the outcome is not known yet (the
// request is running, or ended without a final answer, e.g. 504).
type IdempotencyRecord struct {
	// Key identifies the key within its principal (a hash of both).
	Key string `json:"key"`
	// Principal is the identity that sent the key.
	Principal string `json:"who"`
	// Request is the fingerprint of the request the key was first used
	// with.
	Request string `json:"req"`
	// Time is when the key was first used; it expires IdempotencyTTL
	// later.
	Time time.Time `json:"t"`
	// Status, Header and Body are the final answer (Status 0: none yet).
	Status int               `json:"status,omitempty"`
	Header map[string]string `json:"hdr,omitempty"`
	Body   json.RawMessage   `json:"body,omitempty"`
}

// IdempotencyKeys holds the Idempotency-Key records of a zone directory
// in <dir>/.zoneapi/idempotency.log, an append-only log of JSON lines,
// each fsynced before Put returns. Records are kept IdempotencyTTL;
// their size is bounded by MaxIdempotencyBytes, the oldest dropped
// first. The log is rewritten atomically without expired, dropped or
// replaced records at once when records were dropped for size, and when
// it has grown past 1 MiB and twice the live ones: it stays under twice
// MaxIdempotencyBytes. As the zone
// index does, the log is read again from where this process left it
// before every Get and Put (a compaction by another process, which
// replaces the file, is read whole): records written by another config
// generation or another instance on the same directory are seen at once.
type IdempotencyKeys struct {
	path string
	mu   sync.Mutex
	fi   os.FileInfo // identity of the log last read (nil: not read yet)
	off  int64       // bytes of the log read: always just after a '\n'
	m    map[string]idempotencyEntry
	live int64 // the size of the lines of the records in m
	now  func() time.Time
	// max is MaxIdempotencyBytes (tests lower it).
	max int64
	// swept is when expired records were last dropped.
	swept time.Time
	// sync makes an append durable ((*os.File).Sync; tests that write
	// thousands of records skip it).
	sync func(*os.File) error
	// open opens the log for a refresh (os.Open when nil; tests replace
	// the log before it opens).
	open func(name string) (*os.File, error)
}

// idempotencyEntry is a record and the size of its line in the log.
type idempotencyEntry struct {
	rec  IdempotencyRecord
	size int64
}

// IdempotencyKeys returns the directory's key records (one set per
// Store; the log is read at its first use).
func (s *Store) IdempotencyKeys() *IdempotencyKeys {
	s.keysOnce.Do(func() {
		s.keys = &IdempotencyKeys{path: filepath.Join(s.meta, "idempotency.log"), now: time.Now, max: MaxIdempotencyBytes, sync: (*os.File).Sync}
	})
	return s.keys
}

// refresh reads what was appended to the log since it was last read,
// or the whole log when it was replaced (compacted) or first used. A
// last line without its newline (being written, or torn by a crash) is
// left for later. The caller holds k.mu.
//
// The stat of the path only tells that nothing changed; what is read is
// decided by the open file's own stat, which names the file read: a log
// replaced between the two (another Store's compaction) is read whole
// (before, the records were dropped and none read until the next
// refresh: a key's record was then not found).
func (k *IdempotencyKeys) refresh() error {
	st, err := os.Stat(k.path)
	if errors.Is(err, os.ErrNotExist) {
		k.fi, k.off, k.m, k.live = nil, 0, map[string]idempotencyEntry{}, 0
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading idempotency keys: %w", err)
	}
	if k.fi != nil && os.SameFile(st, k.fi) && st.Size() == k.off {
		return nil
	}
	open := k.open
	if open == nil {
		open = os.Open
	}
	f, err := open(k.path)
	if errors.Is(err, os.ErrNotExist) {
		k.fi, k.off, k.m, k.live = nil, 0, map[string]idempotencyEntry{}, 0
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading idempotency keys: %w", err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return fmt.Errorf("reading idempotency keys: %w", err)
	}
	if k.fi == nil || !os.SameFile(st, k.fi) || st.Size() < k.off {
		k.fi, k.off, k.m, k.live = st, 0, map[string]idempotencyEntry{}, 0
	}
	if st.Size() == k.off {
		return nil
	}
	buf := make([]byte, st.Size()-k.off)
	n, err := f.ReadAt(buf, k.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading idempotency keys: %w", err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return nil
	}
	now := k.now()
	for line := range bytes.SplitSeq(buf[:end], []byte{'\n'}) {
		var r IdempotencyRecord
		if json.Unmarshal(line, &r) != nil || r.Key == "" {
			continue // a torn line (a crash while appending)
		}
		if now.Sub(r.Time) < IdempotencyTTL {
			k.set(r, int64(len(line)+1))
		}
	}
	k.off += int64(end + 1)
	return nil
}

// set records r, whose line takes size bytes, in memory. The caller
// holds k.mu.
func (k *IdempotencyKeys) set(r IdempotencyRecord, size int64) {
	if old, ok := k.m[r.Key]; ok {
		k.live -= old.size
	}
	k.m[r.Key] = idempotencyEntry{rec: r, size: size}
	k.live += size
}

// drop forgets the record of key. The caller holds k.mu.
func (k *IdempotencyKeys) drop(key string) {
	if e, ok := k.m[key]; ok {
		k.live -= e.size
		delete(k.m, key)
	}
}

// Get returns the unexpired record of key.
func (k *IdempotencyKeys) Get(key string) (IdempotencyRecord, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.refresh(); err != nil {
		return IdempotencyRecord{}, false, err
	}
	e, ok := k.m[key]
	if !ok || k.now().Sub(e.rec.Time) >= IdempotencyTTL {
		return IdempotencyRecord{}, false, nil
	}
	return e.rec, true, nil
}

// Put records r durably (appended and fsynced before it returns),
// replacing an earlier record of its key. It never refuses a key for
// the number of keys: past MaxIdempotencyBytes the oldest records are
// dropped instead. A body over 16 KiB is an error.
func (k *IdempotencyKeys) Put(r IdempotencyRecord) error {
	if len(r.Body) > maxIdempotencyBody {
		return fmt.Errorf("remembering an idempotency key: answer of %d bytes is too large", len(r.Body))
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	lf, err := lockIndex(k.path + ".lock")
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := k.refresh(); err != nil {
		return err
	}
	if err := k.append(append(line, '\n')); err != nil {
		return err
	}
	if err := k.refresh(); err != nil {
		return err
	}
	if _, ok := k.m[r.Key]; !ok {
		// Read back expired (a Time a day old): nothing to keep.
		return nil
	}
	dropped := k.bound(r.Key)
	if size := k.off; dropped || size > minIdempotencyCompact && size > 2*k.live {
		// A failed compaction leaves the log valid, only longer.
		_ = k.compact()
	}
	return nil
}

// bound drops expired records (looking at most once a minute, or when
// the live records take more than k.max) and, while the live records
// take more than k.max, the oldest ones but keep (the record just
// written), down to three quarters of k.max so that the log is not
// rewritten at every Put. It reports whether it dropped records for
// their size (the log is then rewritten at once; expired records go at
// the next compaction). The caller holds k.mu.
func (k *IdempotencyKeys) bound(keep string) bool {
	now := k.now()
	if k.live <= k.max && now.Sub(k.swept) < time.Minute {
		return false
	}
	k.swept = now
	for key, e := range k.m {
		if now.Sub(e.rec.Time) >= IdempotencyTTL {
			k.drop(key)
		}
	}
	if k.live <= k.max {
		return false
	}
	byAge := slices.SortedFunc(maps.Values(k.m), func(a, b idempotencyEntry) int { return a.rec.Time.Compare(b.rec.Time) })
	for _, e := range byAge {
		if k.live <= k.max*3/4 {
			break
		}
		if e.rec.Key != keep {
			k.drop(e.rec.Key)
		}
	}
	return true
}

// append writes data at the end of the log and fsyncs it; a short write
// is cut off again. The caller holds k.mu and the log's flock.
func (k *IdempotencyKeys) append(data []byte) error {
	f, err := os.OpenFile(k.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	// A line torn by a crash stays a line of its own (skipped when read),
	// so that it cannot swallow this one.
	last := make([]byte, 1)
	if end > 0 {
		if _, err := f.ReadAt(last, end-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Truncate(end)
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	if err := k.sync(f); err != nil {
		_ = f.Truncate(end)
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	return nil
}

// compact rewrites the log with the live records only, oldest first: a
// temporary file, fsynced, renamed over the log, the directory fsynced.
// The caller holds k.mu and the log's flock.
func (k *IdempotencyKeys) compact() error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	byAge := slices.SortedFunc(maps.Values(k.m), func(a, b idempotencyEntry) int { return a.rec.Time.Compare(b.rec.Time) })
	for _, e := range byAge {
		if err := enc.Encode(e.rec); err != nil {
			return err
		}
	}
	return replaceFile(k.path, buf.Bytes(), func() {
		// Read the new file whole at the next refresh.
		k.fi = nil
	})
}

// replaceFile atomically replaces path with data (temporary file, fsync,
// rename, directory fsync) and calls done once it has.
func replaceFile(path string, data []byte, done func()) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeSync(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	done()
	return nil
}
