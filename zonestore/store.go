package zonestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ErrExists is returned by CreateFile when the zone file already exists.
var ErrExists = errors.New("zone file already exists")

// metaDir is the directory, inside the zone directory, that holds the lock
// file and the index.
const metaDir = ".zoneapi"

// Store manages the zone files and the index of managed zones in one
// directory, the directory named reads. It is safe for concurrent use by
// goroutines and by several processes sharing the directory (byte-range
// locks on one lock file).
type Store struct {
	dir  string // absolute, cleaned
	meta string // dir/.zoneapi
	idx  index

	// dirSync fsyncs dir for CreateFile, shared by concurrent creates.
	dirSync dirSyncer

	keysOnce sync.Once
	keys     *IdempotencyKeys // see IdempotencyKeys
}

// Open returns a Store for dir, which must exist. It creates
// <dir>/.zoneapi/ for the lock file and the index; it reads no zone file
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
	if err := os.MkdirAll(meta, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", meta, err)
	}
	s := &Store{dir: abs, meta: meta}
	s.idx.init(meta)
	var self [8]byte
	_, _ = rand.Read(self[:]) // never fails (crypto/rand)
	s.idx.self = hex.EncodeToString(self[:])
	return s, nil
}

// Close closes the index log. The Store stays usable: its next use opens
// the log again and replays it. The zone locks are the process's and stay.
func (s *Store) Close() error {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	s.idx.waitFlush() // a flush holds the lock file's flock
	s.idx.reset()
	s.idx.closeLock()
	return nil
}

// Dir returns the absolute path of the zone directory.
func (s *Store) Dir() string { return s.dir }

// FilePath returns the path of the zone's master file, <dir>/<base>.zone,
// base being the zone's FileBase (its name, '/' as %2F). The zone name
// must be canonical (see NormalizeZoneName).
func (s *Store) FilePath(zone string) string {
	return filepath.Join(s.dir, FileBase(zone)+".zone")
}

// checkZone ensures a zone name is canonical, so it is safe in a path.
func checkZone(zone string) error {
	n, err := zonemodel.NormalizeZoneName(zone)
	if err != nil {
		return err
	}
	if n != zone {
		return fmt.Errorf("zone name %q is not canonical (want %q)", zone, n)
	}
	return nil
}

// lockFileName is the file, inside the meta directory, whose bytes are the
// zones' cross-process locks.
const lockFileName = "zones.lock"

// processLocks are the in-process halves of the zone locks, shared by every
// Store of the process (Caddy replaces modules on reload while requests run)
// and keyed by lock file and byte offset.
var processLocks = struct {
	sync.Mutex
	m map[string]*procLock
}{m: map[string]*procLock{}}

type procLock struct {
	ch   chan struct{} // holds one token while locked
	refs int
}

// acquireProcLock takes the in-process lock of key, honouring ctx.
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

// lockFiles holds, per lock file path, the descriptor the process locks
// byte ranges of. It stays open for the life of the process: open file
// description locks belong to it.
var lockFiles = struct {
	sync.Mutex
	m map[string]*os.File
}{m: map[string]*os.File{}}

func openLockFile(path string) (*os.File, error) {
	lockFiles.Lock()
	defer lockFiles.Unlock()
	if f, ok := lockFiles.m[path]; ok {
		return f, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	lockFiles.m[path] = f
	return f, nil
}

// lockOffset maps a zone name to a byte of the lock file. Two zones that
// share a byte (a 1 in 2^62 chance) only wait for each other.
func lockOffset(zone string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(zone))
	return int64(h.Sum64() & (1<<62 - 1))
}

// Lock takes the per-zone lock: an in-process lock plus an open file
// description lock (fcntl F_OFD_SETLK) on the zone's byte of
// <dir>/.zoneapi/zones.lock, which excludes other processes sharing the
// directory and is released by the kernel if the process dies. It honours
// ctx while waiting. The returned function releases both. Locking a zone
// creates no file, so it costs the same for a new zone as for an old one.
func (s *Store) Lock(ctx context.Context, zone string) (unlock func(), err error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("locking zone: %w", err)
	}
	unlock, err = lockByte(ctx, filepath.Join(s.meta, lockFileName), lockOffset(zone), "zone "+zone)
	if err == nil {
		s.idx.mu.Lock()
		delete(s.idx.wrote, zone)
		s.idx.mu.Unlock()
	}
	return unlock, err
}

// lockByte takes the in-process lock of byte off of the lock file path,
// then an open file description lock (fcntl F_OFD_SETLK) on that byte,
// honouring ctx while waiting for either; what names the locked thing in
// errors. The returned function releases both, once. Zone locks and side
// file locks are taken through it.
func lockByte(ctx context.Context, path string, off int64, what string) (unlock func(), err error) {
	release, err := acquireProcLock(ctx, path+"#"+strconv.FormatInt(off, 10))
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	f, err := openLockFile(path)
	if err == nil {
		err = lockRange(ctx, f, off)
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			lk := unix.Flock_t{Type: unix.F_UNLCK, Whence: io.SeekStart, Start: off, Len: 1}
			_ = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
			release()
		})
	}, nil
}

// lockRange takes a write lock on byte off of f, polling so that ctx can
// end the wait.
func lockRange(ctx context.Context, f *os.File, off int64) error {
	delay := time.Millisecond
	for {
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: off, Len: 1}
		err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("fcntl lock %s: %w", f.Name(), err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}

// CreateFile writes the zone's master file atomically and exclusively and
// returns its path, <dir>/<zone>.zone. The data goes to an unnamed file
// (O_TMPFILE) that is written, made 0644 and fsynced, then linked to its
// name, which fails with ErrExists when that name exists (it never
// overwrites); then the directory is fsynced (one fsync shared by the
// creates that linked their files meanwhile: each returns once an fsync
// that started after its link completed). A crash leaves either no
// file or the whole file, and never a temporary file. Where the file
// system has no O_TMPFILE, a named temporary file is linked instead.
func (s *Store) CreateFile(zone string, data []byte) (path string, err error) {
	if err := checkZone(zone); err != nil {
		return "", fmt.Errorf("creating zone file: %w", err)
	}
	path = s.FilePath(zone)
	if err := createExclusive(s.dir, path, zone, data, s.dirSync.Sync); err != nil {
		return "", fmt.Errorf("creating zone file %s: %w", path, err)
	}
	return path, nil
}

// CreateFileIn writes the file name (a plain file name, not a path) in the
// directory dir as CreateFile writes a zone's master file: atomically and
// exclusively (ErrExists when it exists), the file and the directory
// fsynced. It is for the files of the zone directory that are not a
// managed zone's, such as the catalog zone's.
func CreateFileIn(dir, name string, data []byte) error {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("creating file %q: not a plain file name", name)
	}
	path := filepath.Join(dir, name)
	if err := createExclusive(dir, path, name, data, syncDir); err != nil {
		return fmt.Errorf("creating file %s: %w", path, err)
	}
	return nil
}

// createExclusive writes data to path in dir (unnamed file, else a named
// temporary one tagged with tag), links it exclusively and fsyncs dir
// with syncDir.
func createExclusive(dir, path, tag string, data []byte, syncDir func(string) error) error {
	err := createUnnamed(dir, path, data)
	if errors.Is(err, errNoTmpfile) {
		err = createNamedTemp(dir, path, tag, data)
	}
	if errors.Is(err, fs.ErrExist) {
		return ErrExists
	}
	if err != nil {
		return err
	}
	return syncDir(dir)
}

// errNoTmpfile means O_TMPFILE (or /proc, needed to link the file) is not
// available here.
var errNoTmpfile = errors.New("O_TMPFILE not available")

// createUnnamed writes data to an O_TMPFILE file in dir, fsyncs it and
// links it to path.
func createUnnamed(dir, path string, data []byte) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			return errNoTmpfile
		}
		return err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil { // the umask applied at open
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) {
		if _, statErr := os.Stat("/proc/self/fd"); statErr != nil {
			return errNoTmpfile // no /proc: link by name instead
		}
	}
	if errors.Is(err, unix.EEXIST) {
		return fs.ErrExist
	}
	return err
}

// createNamedTemp writes data to a named temporary file in dir, fsyncs it,
// links it to path and removes the temporary name.
func createNamedTemp(dir, path, tag string, data []byte) error {
	tmp, err := os.CreateTemp(dir, ".zoneapi-tmp-"+tag+"-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if err := writeSync(tmp, data); err != nil {
		return err
	}
	if err := os.Link(tmpName, path); err != nil {
		return err
	}
	return os.Remove(tmpName)
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
// .zone.jnl, .zone.jbk, .zone.signed, .zone.signed.jnl, .zone.signed.jbk,
// its side files (<zone>.pdns.json, see ReplaceSideFile) and the DNSSEC key files K<zone>.+NNN+NNNNN.{key,private,state}. It returns
// the removed paths; missing files are fine.
func (s *Store) RemoveZoneFiles(zone string) ([]string, error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("removing zone files: %w", err)
	}
	var candidates []string
	for _, suf := range zoneFileSuffixes {
		candidates = append(candidates, filepath.Join(s.dir, FileBase(zone)+suf))
	}
	for _, kind := range sideKinds {
		candidates = append(candidates, s.SideFilePath(zone, kind))
	}
	// The key file prefix holds no glob metacharacters (a canonical name,
	// '/' and '%' escaped).
	prefix := keyFilePrefix(zone)
	keys, err := filepath.Glob(filepath.Join(s.dir, prefix+"+*"))
	if err != nil {
		return nil, fmt.Errorf("removing zone files: %w", err)
	}
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
