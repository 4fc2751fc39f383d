package zonestore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The bounds of the Idempotency-Key records of one zone directory.
const (
	// IdempotencyTTL is how long a key is remembered.
	IdempotencyTTL = 24 * time.Hour
	// MaxIdempotencyKeys bounds the keys remembered at once; past it a
	// new key is refused (ErrKeysFull) until old ones expire.
	MaxIdempotencyKeys = 20000
	// MaxIdempotencyKeysPer bounds the keys of one principal, so that
	// one client cannot use up the others' room.
	MaxIdempotencyKeysPer = 2000
	// maxIdempotencyBody bounds a remembered answer's body.
	maxIdempotencyBody = 16 << 10
)

// ErrKeysFull means a key cannot be remembered: the principal, or the
// directory, has as many unexpired keys as the bounds allow.
var ErrKeysFull = errors.New("too many idempotency keys remembered")

// ErrKeysTableFull is the ErrKeysFull of a full directory (the principal
// itself is under its bound): other identities' keys fill the table.
var ErrKeysTableFull = fmt.Errorf("%w: the zone directory's table is full", ErrKeysFull)

// IdempotencyRecord is what the zone API remembers of a request sent with
// an Idempotency-Key: which request (its fingerprint) and, once known,
// its final answer. Status 0 means the outcome is not known yet (the
// request is running, or ended without a final answer, e.g. 504).
type IdempotencyRecord struct {
	// Key identifies the key within its principal (a hash of both).
	Key string `json:"key"`
	// Principal is the identity that sent the key (for the bound per
	// principal).
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
// in <dir>/.zoneapi/idempotency.log, an append-only log of JSON lines
// (each fsynced), replayed at first use and compacted (rewritten without
// expired or replaced records, atomically) when it has grown to twice
// the live records. Records are kept IdempotencyTTL; the number of live
// records is bounded by MaxIdempotencyKeys and MaxIdempotencyKeysPer.
// The records live in the process that wrote them and in the file: an
// instance sharing the directory sees another's records after its next
// start.
type IdempotencyKeys struct {
	path string
	mu   sync.Mutex
	// loaded is set once the log was replayed.
	loaded bool
	m      map[string]IdempotencyRecord
	per    map[string]int
	lines  int
	now    func() time.Time
}

// IdempotencyKeys returns the directory's key records (one set per
// Store; the log is read at its first use).
func (s *Store) IdempotencyKeys() *IdempotencyKeys {
	s.keysOnce.Do(func() {
		s.keys = &IdempotencyKeys{path: filepath.Join(s.meta, "idempotency.log"), now: time.Now}
	})
	return s.keys
}

// load replays the log once. The caller holds k.mu.
func (k *IdempotencyKeys) load() error {
	if k.loaded {
		return nil
	}
	k.m, k.per, k.lines = map[string]IdempotencyRecord{}, map[string]int{}, 0
	data, err := os.ReadFile(k.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading idempotency keys: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	now := k.now()
	for sc.Scan() {
		var r IdempotencyRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Key == "" {
			continue // a torn last line (a crash while appending)
		}
		k.lines++
		if now.Sub(r.Time) < IdempotencyTTL {
			k.set(r)
		}
	}
	k.loaded = true
	return nil
}

// set records r in memory. The caller holds k.mu.
func (k *IdempotencyKeys) set(r IdempotencyRecord) {
	if old, ok := k.m[r.Key]; ok {
		k.per[old.Principal]--
	}
	k.m[r.Key] = r
	k.per[r.Principal]++
}

// expire drops expired records from memory. The caller holds k.mu.
func (k *IdempotencyKeys) expire(now time.Time) {
	for key, r := range k.m {
		if now.Sub(r.Time) >= IdempotencyTTL {
			delete(k.m, key)
			if k.per[r.Principal]--; k.per[r.Principal] <= 0 {
				delete(k.per, r.Principal)
			}
		}
	}
}

// Get returns the unexpired record of key.
func (k *IdempotencyKeys) Get(key string) (IdempotencyRecord, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.load(); err != nil {
		return IdempotencyRecord{}, false, err
	}
	r, ok := k.m[key]
	if !ok || k.now().Sub(r.Time) >= IdempotencyTTL {
		return IdempotencyRecord{}, false, nil
	}
	return r, true, nil
}

// Put records r durably (appended and fsynced before it returns),
// replacing an earlier record of its key. A new key past the bounds is
// refused with ErrKeysFull; a body over 16 KiB is an error.
func (k *IdempotencyKeys) Put(r IdempotencyRecord) error {
	if len(r.Body) > maxIdempotencyBody {
		return fmt.Errorf("remembering an idempotency key: answer of %d bytes is too large", len(r.Body))
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.load(); err != nil {
		return err
	}
	now := k.now()
	if _, replacing := k.m[r.Key]; !replacing {
		if len(k.m) >= MaxIdempotencyKeys || k.per[r.Principal] >= MaxIdempotencyKeysPer {
			k.expire(now)
		}
		if k.per[r.Principal] >= MaxIdempotencyKeysPer {
			return ErrKeysFull
		}
		if len(k.m) >= MaxIdempotencyKeys {
			return ErrKeysTableFull
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	if err := k.append(append(line, '\n')); err != nil {
		return err
	}
	k.set(r)
	k.lines++
	if k.lines > 1000 && k.lines > 2*len(k.m) {
		k.expire(now)
		// A failed compaction leaves the log valid, only longer.
		_ = k.compact()
	}
	return nil
}

// append writes data at the end of the log under its flock and fsyncs
// it; a short write is cut off again. The caller holds k.mu.
func (k *IdempotencyKeys) append(data []byte) error {
	f, err := os.OpenFile(k.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	defer f.Close()
	lf, err := lockIndex(k.path + ".lock")
	if err != nil {
		return err
	}
	defer lf.Close()
	end, err := f.Seek(0, 2)
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
	if err := f.Sync(); err != nil {
		_ = f.Truncate(end)
		return fmt.Errorf("remembering an idempotency key: %w", err)
	}
	return nil
}

// compact rewrites the log with the live records only: a temporary file,
// fsynced, renamed over the log, the directory fsynced. The caller holds
// k.mu.
func (k *IdempotencyKeys) compact() error {
	lf, err := lockIndex(k.path + ".lock")
	if err != nil {
		return err
	}
	defer lf.Close()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range k.m {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return replaceFile(k.path, buf.Bytes(), func() { k.lines = len(k.m) })
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
