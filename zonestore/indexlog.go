package zonestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// queuedWrite is one writer's records, and the outcome of their flush.
type queuedWrite struct {
	recs []logRecord
	buf  []byte
	err  error
	done bool
	// lazy: the records need not be durable before the writer goes on
	// (touches, a create's completion): a flush of lazy writes alone
	// does not fsync.
	lazy bool
}

// write appends records under the cross-process index lock and applies
// them; it compacts the log when it has grown to twice the live set.
// The caller holds x.mu. Writers that come while another one's records
// are being fsynced queue theirs, and the next flush appends and fsyncs
// them all at once (group commit): each returns once its own records are
// durable and applied, or with the error that kept them from being.
func (x *index) write(recs []logRecord) error { return x.writeAs(recs, false) }

// writeAs is write; with lazy, the records are appended and applied
// without waiting for an fsync of their own (they are durable with the
// log's next fsync, any writer's): see Store.CompleteCreate.
func (x *index) writeAs(recs []logRecord, lazy bool) error {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("writing zone index: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	w := &queuedWrite{recs: recs, buf: buf.Bytes(), lazy: len(recs) > 0}
	for _, r := range recs {
		w.lazy = w.lazy && (lazy || r.Op == "touch")
		if r.Op != "touch" {
			if x.wrote == nil {
				x.wrote = make(map[string]bool)
			}
			x.wrote[r.Name] = true
		}
	}
	x.queue = append(x.queue, w)
	for x.flushing && !w.done {
		x.cond().Wait()
	}
	if w.done {
		return w.err
	}
	x.flushing = true
	batch := x.queue
	x.queue = nil
	err := x.flush(batch)
	for _, b := range batch {
		b.err, b.done = err, true
	}
	x.flushing = false
	x.cond().Broadcast()
	return w.err
}

// cond is x.idle, made on first use. The caller holds x.mu.
func (x *index) cond() *sync.Cond {
	if x.idle == nil {
		x.idle = sync.NewCond(&x.mu)
	}
	return x.idle
}

// waitFlush waits until no flush runs. The caller holds x.mu.
func (x *index) waitFlush() {
	for x.flushing {
		x.cond().Wait()
	}
}

// flush appends the batch's records under the cross-process index lock,
// fsyncs them (releasing x.mu meanwhile) and applies them. The caller
// holds x.mu and has set x.flushing.
func (x *index) flush(batch []*queuedWrite) error {
	if err := x.lock(); err != nil {
		return err
	}
	defer x.unlock()

	size, err := x.refresh()
	if err != nil {
		return err
	}
	if size > x.off {
		// A line without its '\n' left by a writer that crashed or failed
		// (we hold the lock, so nobody is writing it): discard it. Ending
		// it instead would complete a record that was never acknowledged.
		if err := x.f.Truncate(x.off); err != nil {
			return fmt.Errorf("writing zone index: discarding a torn line: %w", err)
		}
		x.discarded += size - x.off
		size = x.off
	}
	var all []byte
	lazy := true
	for _, b := range batch {
		lazy = lazy && b.lazy
	}
	if len(batch) == 1 {
		all = batch[0].buf
	} else {
		for _, b := range batch {
			all = append(all, b.buf...)
		}
	}
	wrote := x.f
	if _, err := x.f.Write(all); err != nil {
		// A short write (disk full) leaves part of a line: remove it, so
		// that nothing of a failed write is ever read back.
		_ = x.f.Truncate(size)
		return fmt.Errorf("writing zone index: %w", err)
	}
	if !lazy {
		x.unsynced, x.syncFrom = true, size
		x.flushes++
		f := x.f
		x.mu.Unlock()
		err = f.Sync()
		x.mu.Lock()
		x.unsynced = false
	}
	if err != nil {
		_ = x.f.Truncate(size)
		return fmt.Errorf("writing zone index: %w", err)
	}
	// Nobody else appends while we hold the lock: consume what we wrote,
	// applying the records themselves rather than reading their lines
	// back and parsing them (issue 27), unless the log was read again
	// meanwhile (replaced under us) or a record would not read back as
	// it is (see asWritten).
	if x.f == wrote && x.off == size && batchAsWritten(batch) {
		for _, b := range batch {
			for _, r := range b.recs {
				x.lines++
				x.applyRecord(r.detached())
			}
		}
		x.off = size + int64(len(all))
	} else if _, err := x.refresh(); err != nil {
		return err
	}
	// The records are durable and applied: from here on, nothing may fail
	// the write. A compaction that fails (no room for the compacted copy,
	// say) leaves the log as it was, which is correct, only longer; it is
	// tried again once compactMin more lines were written.
	if x.lines > x.compactMin && x.lines > 2*(len(x.live)+len(x.pending)) && x.lines >= x.compactAgain {
		if err := x.compact(); err != nil {
			x.compactErr, x.compactAgain = err, x.lines+x.compactMin
		} else {
			x.compactErr, x.compactAgain = nil, 0
		}
	}
	return nil
}

// batchAsWritten reports whether every record of the batch reads back
// from its line as it is (asWritten).
func batchAsWritten(batch []*queuedWrite) bool {
	for _, b := range batch {
		for _, r := range b.recs {
			if !r.asWritten() {
				return false
			}
		}
	}
	return true
}

// asWritten reports whether r's log line parses back to r: its strings
// are valid UTF-8 (json.Marshal replaces invalid bytes) and its times are
// in UTC (a line keeps the offset, not the location). Every writer sets
// UTC times and the names and types are checked, so only an odd
// fingerprint or file name fails it; its batch is then read back.
func (r *logRecord) asWritten() bool {
	ok := utf8.ValidString(r.Op) && utf8.ValidString(r.Name) && utf8.ValidString(r.Type) &&
		utf8.ValidString(r.FP) && utf8.ValidString(r.File) && utf8.ValidString(r.By) &&
		isUTC(r.Created)
	if in := r.Intent; ok && in != nil {
		ok = utf8.ValidString(in.Op) && utf8.ValidString(in.Type) && utf8.ValidString(in.Fingerprint) &&
			utf8.ValidString(in.File) && utf8.ValidString(in.KeyDir) && isUTC(in.Time) && isUTC(in.NotAfter)
	}
	return ok
}

// detached is r with its own copies of the strings the index keeps, as
// a record parsed from its line has: a writer's may be part of a larger
// string (a request's), which the index would otherwise keep alive.
func (r logRecord) detached() logRecord {
	r.Name, r.FP, r.File = strings.Clone(r.Name), strings.Clone(r.FP), strings.Clone(r.File)
	if r.Intent != nil {
		in := *r.Intent
		in.Type, in.Fingerprint = strings.Clone(in.Type), strings.Clone(in.Fingerprint)
		in.File, in.KeyDir = strings.Clone(in.File), strings.Clone(in.KeyDir)
		r.Intent = &in
	}
	return r
}

// isUTC reports whether t is in UTC without a monotonic clock reading,
// as a time read from a log line is.
func isUTC(t time.Time) bool { return t.Location() == time.UTC && t == t.Round(0) }

// CompactionError returns the failure of the index log's last compaction,
// or nil when it succeeded (or none was needed yet). A failed compaction
// fails no operation: the log stays valid, only longer, and the
// compaction is tried again later.
func (s *Store) CompactionError() error {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.compactErr
}

// lock takes the cross-process index lock: an flock of index.lock, whose
// file stays open between writes (opening it for each one cost a create
// more than the flock itself, issue 27). The flock is the open file's,
// so two Stores on one directory, in one process or two, still exclude
// each other; within a Store, x.mu and x.flushing keep two of its own
// writers from taking it at once. A lock file unlinked meanwhile (an
// operator removing "stale" lock files; every process locks what the
// path names) is let go and the path opened again, as each write did
// before. The caller holds x.mu; unlock releases the lock.
func (x *index) lock() error {
	for {
		if x.lockf == nil {
			lf, err := os.OpenFile(x.lockPath, os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				return fmt.Errorf("locking zone index: %w", err)
			}
			x.lockf = lf
		}
		fd := int(x.lockf.Fd())
		var err error
		for {
			err = syscall.Flock(fd, syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		if err != nil {
			x.closeLock()
			return fmt.Errorf("locking zone index: %w", err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			x.closeLock()
			return fmt.Errorf("locking zone index: %w", err)
		}
		if st.Nlink > 0 {
			// A file open before stays writable when its file system
			// is made read-only under it (a read-only bind or remount):
			// the path tells, as opening it for each write did.
			if err := unix.Access(x.lockPath, unix.W_OK); err != nil {
				x.unlock()
				return fmt.Errorf("locking zone index: %w", err)
			}
			return nil
		}
		x.closeLock() // unlinked: lock what the path names now
	}
}

// unlock releases the index lock taken by lock.
func (x *index) unlock() {
	if x.lockf == nil {
		return
	}
	if err := syscall.Flock(int(x.lockf.Fd()), syscall.LOCK_UN); err != nil {
		x.closeLock() // closing the file releases it
	}
}

// closeLock closes the lock file, which releases its flock.
func (x *index) closeLock() {
	if x.lockf != nil {
		x.lockf.Close()
		x.lockf = nil
	}
}

// compact atomically replaces the log by one put line per live entry. The
// caller holds x.mu and the index lock.
func (x *index) compact() error {
	dir := filepath.Dir(x.logPath)
	tmp, err := os.CreateTemp(dir, "index.log.tmp-*")
	if err != nil {
		return fmt.Errorf("compacting zone index: %w", err)
	}
	defer os.Remove(tmp.Name())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var encErr error
	lines := len(x.live) + len(x.pending)
	x.all.ascend("", func(name string) bool {
		k := x.live[name]
		e := k.entry(name)
		encErr = enc.Encode(logRecord{Op: "put", Name: e.Name, Type: e.Type, Created: e.Created, FP: e.Fingerprint, File: e.File})
		return encErr == nil
	})
	for _, name := range slices.Sorted(maps.Keys(x.pending)) {
		if encErr != nil {
			break
		}
		in := x.pending[name]
		encErr = enc.Encode(logRecord{Op: "intent", Name: name, Intent: &in})
	}
	if encErr != nil {
		tmp.Close()
		return fmt.Errorf("compacting zone index: %w", encErr)
	}
	if err := writeSync(tmp, buf.Bytes()); err != nil {
		return fmt.Errorf("compacting zone index: %w", err)
	}
	if err := os.Rename(tmp.Name(), x.logPath); err != nil {
		return fmt.Errorf("compacting zone index: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("compacting zone index: %w", err)
	}
	// The new file holds what we hold already: take it as read, rather
	// than replaying every entry (and making ChangesSince's readers read
	// the whole index again).
	f, err := os.OpenFile(x.logPath, os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		x.reset()
		_, err = x.refresh()
		return err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != int64(buf.Len()) {
		f.Close()
		x.reset()
		_, err = x.refresh()
		return err
	}
	x.f.Close()
	x.f, x.fi, x.off, x.lines = f, fi, fi.Size(), lines
	return nil
}

// lockIndex opens a lock file and takes its flock; closing the file
// releases it (the idempotency keys' log).
func lockIndex(path string) (*os.File, error) {
	lf, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking zone index: %w", err)
	}
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("locking zone index: %w", err)
	}
	return lf, nil
}
