package zonestore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// RemoveKeyFiles removes the zone's DNSSEC key files
// K<zone>.+NNN+NNNNN.{key,private,state} from dir (named's key directory
// of the zone) and returns the removed paths.
func RemoveKeyFiles(dir, zone string) ([]string, error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("removing key files: %w", err)
	}
	prefix := keyFilePrefix(zone)
	keys, err := filepath.Glob(filepath.Join(dir, prefix+"+*"))
	if err != nil {
		return nil, fmt.Errorf("removing key files: %w", err)
	}
	var removed []string
	var errs []error
	for _, k := range keys {
		if !keyFileRE.MatchString(filepath.Base(k)[len(prefix):]) {
			continue
		}
		switch err := os.Remove(k); {
		case err == nil:
			removed = append(removed, k)
		case errors.Is(err, fs.ErrNotExist):
		default:
			errs = append(errs, err)
		}
	}
	if len(removed) > 0 {
		if err := syncDir(dir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("removing key files of zone %s: %w", zone, err)
	}
	return removed, nil
}

// HasFile reports whether the zone's master file <dir>/<zone>.zone exists
// (as a file, directory or symbolic link); an error other than its absence
// is returned.
func (s *Store) HasFile(zone string) (bool, error) {
	if err := checkZone(zone); err != nil {
		return false, fmt.Errorf("looking for zone file: %w", err)
	}
	switch _, err := os.Lstat(s.FilePath(zone)); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("looking for zone file: %w", err)
	}
}

// ReadFile returns the content of the zone's master file <dir>/<zone>.zone
// when it is a regular file (not followed through a symbolic link) of at
// most max bytes; ok is false otherwise, or when it cannot be read.
func (s *Store) ReadFile(zone string, max int64) (data []byte, ok bool) {
	if checkZone(zone) != nil {
		return nil, false
	}
	f, err := os.OpenFile(s.FilePath(zone), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > max {
		return nil, false
	}
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, false
	}
	return data, true
}

// Exists reports whether the file at path exists (an adopted zone's file
// outside the zone directory, which named removes when the zone is
// deleted with -clean).
func (s *Store) Exists(path string) (bool, error) {
	switch _, err := os.Lstat(path); {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("looking for %s: %w", path, err)
	}
}

// DiscardFile removes the zone's master file and its journal, written for a
// create that did not happen, and fsyncs the directory. A file already
// gone is fine; other failures are returned.
func (s *Store) DiscardFile(zone string) error {
	if err := checkZone(zone); err != nil {
		return fmt.Errorf("discarding zone file: %w", err)
	}
	path := s.FilePath(zone)
	_ = os.Remove(path + ".jnl")
	switch err := os.Remove(path); {
	case err == nil:
		_ = syncDir(s.dir)
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("discarding zone file: %w", err)
	}
}

// CheckDir reports whether dir is a directory this process can write (and
// search): the readiness check of a zone directory, before it is opened.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// ZoneFiles returns the zones that have a master file <zone>.zone in the
// zone directory, in directory order. Names that are not canonical zone
// names are skipped.
func (s *Store) ZoneFiles() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("listing zone directory: %w", err)
	}
	var out []string
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".zone")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		name, ok := ZoneOfFileBase(base)
		if !ok {
			continue
		}
		out = append(out, name)
	}
	return out, nil
}

// MoveAside moves the zone's master file (and its journal, if any) into
// <dir>/.zoneapi/orphaned/, named <file>.<unix time>, and returns the new
// path of the master file. It is for files no zone of named uses: they are
// kept for the operator rather than deleted. Where <file>.<unix time>
// would be too long a name (a zone name of over 226 characters), the
// files keep their names in a directory orphaned/<unix time>/.
//
// The journal goes first: a crash or a failure between the two moves
// leaves the zone file, which is moved aside again later, and never a
// journal without its file, which named would read with the file of the
// next zone of that name.
func (s *Store) MoveAside(zone string) (string, error) {
	if err := checkZone(zone); err != nil {
		return "", fmt.Errorf("moving zone file aside: %w", err)
	}
	od := filepath.Join(s.meta, "orphaned")
	if err := os.MkdirAll(od, 0o755); err != nil {
		return "", fmt.Errorf("moving zone file aside: %w", err)
	}
	base := FileBase(zone)
	stamp := fmt.Sprintf(".%d", time.Now().UnixNano())
	to := od
	dst := func(suf string) string { return filepath.Join(od, base+suf+stamp) }
	if len(base)+len(".zone.jnl")+len(stamp) > maxNameLen {
		to = filepath.Join(od, stamp[1:])
		if err := os.MkdirAll(to, 0o755); err != nil {
			return "", fmt.Errorf("moving zone file aside: %w", err)
		}
		dst = func(suf string) string { return filepath.Join(to, base+suf) }
	}
	var moved string
	for _, suf := range []string{".zone.jnl", ".zone"} {
		src := filepath.Join(s.dir, base+suf)
		if err := os.Rename(src, dst(suf)); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return moved, fmt.Errorf("moving zone file aside: %w", err)
		}
		if suf == ".zone" {
			moved = dst(suf)
		}
	}
	if err := syncDir(s.dir); err != nil {
		return moved, err
	}
	if to != od {
		if err := syncDir(to); err != nil {
			return moved, err
		}
	}
	return moved, syncDir(od)
}

// maxNameLen is the longest file name (Linux's NAME_MAX).
const maxNameLen = 255

// Journals returns the journals named keeps for the zone's master file
// (<file>.jnl, and <file>.signed.jnl for an inline-signed zone) that
// exist, with their sizes in bytes.
func (s *Store) Journals(zone string) (map[string]int64, error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("looking for zone journals: %w", err)
	}
	out := map[string]int64{}
	for _, p := range []string{s.FilePath(zone) + ".jnl", s.FilePath(zone) + ".signed.jnl"} {
		fi, err := os.Lstat(p)
		switch {
		case err == nil:
			out[p] = fi.Size()
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("looking for zone journals: %w", err)
		}
	}
	return out, nil
}

// RemoveEmptyJournals removes the zone's journals that are empty (0
// bytes: named was killed as it created them, and refuses to load the
// zone while they are there; they hold nothing) and returns their paths.
// A journal that is not empty is left alone.
func (s *Store) RemoveEmptyJournals(zone string) ([]string, error) {
	js, err := s.Journals(zone)
	if err != nil {
		return nil, err
	}
	var removed []string
	for p, size := range js {
		if size != 0 {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("removing an empty journal: %w", err)
		}
		removed = append(removed, p)
	}
	if len(removed) > 0 {
		_ = syncDir(s.dir)
	}
	return removed, nil
}
