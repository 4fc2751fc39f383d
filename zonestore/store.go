package zonestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// ErrExists is returned by CreateFile when the zone file already exists.
var ErrExists = errors.New("zone file already exists")

// metaDir is the directory, inside the zone directory, that holds the lock
// files and the index.
const metaDir = ".zoneapi"

// Store manages the zone files and the index of managed zones in one
// directory, the directory named reads. It is safe for concurrent use by
// goroutines and by several processes sharing the directory (lock files).
type Store struct {
	dir  string // absolute, cleaned
	meta string // dir/.zoneapi
	idx  index
}

// Open returns a Store for dir, which must exist. It creates
// <dir>/.zoneapi/ for the lock files and the index; it reads no zone file
// and defers reading the index to its first use.
func Open(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("opening zone directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("opening zone directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("opening zone directory: %s is not a directory", abs)
	}
	meta := filepath.Join(abs, metaDir)
	if err := os.MkdirAll(filepath.Join(meta, "locks"), 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", meta, err)
	}
	s := &Store{dir: abs, meta: meta}
	s.idx.init(meta)
	return s, nil
}

// Dir returns the absolute path of the zone directory.
func (s *Store) Dir() string { return s.dir }

// FilePath returns the path of the zone's master file, <dir>/<zone>.zone.
// The zone name must be canonical (see NormalizeZoneName).
func (s *Store) FilePath(zone string) string {
	return filepath.Join(s.dir, zone+".zone")
}

// checkZone ensures a zone name is canonical, so it is safe in a path.
func checkZone(zone string) error {
	n, err := NormalizeZoneName(zone)
	if err != nil {
		return err
	}
	if n != zone {
		return fmt.Errorf("zone name %q is not canonical (want %q)", zone, n)
	}
	return nil
}

// processLocks are the in-process halves of the zone locks, shared by every
// Store of the process (Caddy replaces modules on reload while requests run)
// and keyed by lock file path.
var processLocks = struct {
	sync.Mutex
	m map[string]*procLock
}{m: map[string]*procLock{}}

type procLock struct {
	ch   chan struct{} // holds one token while locked
	refs int
}

func acquireProcLock(ctx context.Context, key string) (func(), error) {
	processLocks.Lock()
	l := processLocks.m[key]
	if l == nil {
		l = &procLock{ch: make(chan struct{}, 1)}
		processLocks.m[key] = l
	}
	l.refs++
	processLocks.Unlock()

	release := func() {
		processLocks.Lock()
		l.refs--
		if l.refs == 0 {
			delete(processLocks.m, key)
		}
		processLocks.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// Lock takes the per-zone lock: an in-process mutex plus flock(2) on
// <dir>/.zoneapi/locks/<zone>.lock, honouring ctx while waiting. The
// returned function releases both; lock files are left in place.
func (s *Store) Lock(ctx context.Context, zone string) (unlock func(), err error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("locking zone: %w", err)
	}
	path := filepath.Join(s.meta, "locks", zone+".lock")
	release, err := acquireProcLock(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("locking zone %s: %w", zone, err)
	}
	f, err := flockFile(ctx, path)
	if err != nil {
		release()
		return nil, fmt.Errorf("locking zone %s: %w", zone, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = f.Close() // closing the descriptor drops the flock
			release()
		})
	}, nil
}

// flockFile opens path and takes an exclusive flock on it, polling so that
// ctx can end the wait.
func flockFile(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	delay := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

// CreateFile writes the zone's master file atomically and exclusively: a
// temporary file in the directory is written and fsynced, then hard-linked
// to <dir>/<zone>.zone, which fails with ErrExists when that file exists
// (it never overwrites), then the temporary file is removed and the
// directory fsynced. The file's mode is 0644. It returns the file's path.
func (s *Store) CreateFile(zone string, data []byte) (path string, err error) {
	if err := checkZone(zone); err != nil {
		return "", fmt.Errorf("creating zone file: %w", err)
	}
	path = s.FilePath(zone)
	tmp, err := os.CreateTemp(s.dir, ".zoneapi-tmp-"+zone+"-*")
	if err != nil {
		return "", fmt.Errorf("creating zone file %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if err := writeSync(tmp, data); err != nil {
		return "", fmt.Errorf("creating zone file %s: %w", path, err)
	}
	if err := os.Link(tmpName, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("creating zone file %s: %w", path, ErrExists)
		}
		return "", fmt.Errorf("creating zone file %s: %w", path, err)
	}
	if err := os.Remove(tmpName); err != nil {
		return "", fmt.Errorf("removing temporary file %s: %w", tmpName, err)
	}
	if err := syncDir(s.dir); err != nil {
		return "", fmt.Errorf("creating zone file %s: %w", path, err)
	}
	return path, nil
}

// writeSync writes data to f, makes it 0644, fsyncs and closes it.
func writeSync(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir fsyncs a directory so that renames and links in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// zoneFileSuffixes are what BIND and this package leave beside a zone's name.
var zoneFileSuffixes = []string{
	".zone", ".zone.jnl", ".zone.jbk",
	".zone.signed", ".zone.signed.jnl", ".zone.signed.jbk",
}

// keyFileRE matches DNSSEC key files K<zone>.+NNN+NNNNN.{key,private,state}
// once the "K<zone>." prefix is removed.
var keyFileRE = regexp.MustCompile(`^\+[0-9]{3}\+[0-9]{5}\.(key|private|state)$`)

// RemoveZoneFiles removes what a zone left in the directory: <zone>.zone,
// .zone.jnl, .zone.jbk, .zone.signed, .zone.signed.jnl, .zone.signed.jbk and
// the DNSSEC key files K<zone>.+NNN+NNNNN.{key,private,state}. It returns
// the removed paths; missing files are fine.
func (s *Store) RemoveZoneFiles(zone string) ([]string, error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("removing zone files: %w", err)
	}
	var candidates []string
	for _, suf := range zoneFileSuffixes {
		candidates = append(candidates, filepath.Join(s.dir, zone+suf))
	}
	// The zone name holds no glob metacharacters (checked above).
	keys, err := filepath.Glob(filepath.Join(s.dir, "K"+zone+".+*"))
	if err != nil {
		return nil, fmt.Errorf("removing zone files: %w", err)
	}
	prefix := "K" + zone + "."
	for _, k := range keys {
		if keyFileRE.MatchString(filepath.Base(k)[len(prefix):]) {
			candidates = append(candidates, k)
		}
	}
	var removed []string
	var errs []error
	for _, p := range candidates {
		switch err := os.Remove(p); {
		case err == nil:
			removed = append(removed, p)
		case errors.Is(err, fs.ErrNotExist):
		default:
			errs = append(errs, err)
		}
	}
	if len(removed) > 0 {
		if err := syncDir(s.dir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("removing files of zone %s: %w", zone, err)
	}
	return removed, nil
}
