package zonestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Side files hold what a front end keeps of a zone that BIND has no place
// for (the PowerDNS API's comments, disabled records and zone attributes):
// <dir>/<zone>.<kind>.json, beside the zone's file. They are written
// whole and atomically (ReplaceSideFile), read whole (ReadSideFile),
// serialised per zone and kind across processes (LockSideFile), and
// removed with the zone's other files when the zone is deleted
// (RemoveZoneFiles, run again by the delete's intent after a crash).
// What is in them is the front end's business.

// SideKindPowerDNS is the PowerDNS API's side file kind:
// <zone>.pdns.json (zonemodel's).
const SideKindPowerDNS = zonemodel.SideKindPowerDNS

// sideKinds are the side file kinds; RemoveZoneFiles removes each.
var sideKinds = []string{SideKindPowerDNS}

// sideLockFileName is the file, inside the meta directory, whose bytes are
// the side files' locks (apart from the zones' locks, so that a side file
// may be locked around a zone operation that takes the zone's lock).
const sideLockFileName = "side.lock"

// MaxSideFile bounds a side file read (ReadSideFile) and write
// (ReplaceSideFile).
const MaxSideFile = zonemodel.MaxSideFile

func checkSideKind(kind string) error {
	for _, k := range sideKinds {
		if k == kind {
			return nil
		}
	}
	return fmt.Errorf("side file kind %q is not one of %s", kind, strings.Join(sideKinds, ", "))
}

// SideFilePath is the path of the zone's side file of kind:
// <dir>/<base>.<kind>.json, base being the zone's FileBase.
func (s *Store) SideFilePath(zone, kind string) string {
	return filepath.Join(s.dir, FileBase(zone)+"."+kind+".json")
}

// ReadSideFile reads the zone's side file of kind whole; ok is false when
// there is none. A file over MaxSideFile bytes, or not a regular file, is
// an error.
func (s *Store) ReadSideFile(zone, kind string) (data []byte, ok bool, err error) {
	data, _, ok, err = s.ReadSideFileStamped(zone, kind)
	return data, ok, err
}

// SideFileStamp identifies one version of a side file, from a stat of it
// (zonemodel.SideFileStamp).
type SideFileStamp = zonemodel.SideFileStamp

// sideStat is what a stamp is made of (stampOf).
type sideStat struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// sideStampSlack is how much older than a read a side file's times must
// be for the read's stamp to be trusted: above the kernel's timestamp
// tick (a few milliseconds), on file systems with nanosecond times.
// Where times are whole seconds (nanoseconds 0: ext4 with small inodes,
// FAT), sideStampSlackCoarse.
const (
	sideStampSlack       = 100 * time.Millisecond
	sideStampSlackCoarse = 3 * time.Second
)

func stampOf(fi fs.FileInfo) sideStat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sideStat{} // never settled: never matches
	}
	return sideStat{
		dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size,
		mtime: time.Unix(st.Mtim.Unix()).UnixNano(), ctime: time.Unix(st.Ctim.Unix()).UnixNano(),
	}
}

// stamp is the stat's stamp, settled or not.
func (st sideStat) stamp(settled bool) SideFileStamp {
	if st == (sideStat{}) {
		return SideFileStamp{}
	}
	return zonemodel.NewSideFileStamp(st.dev, st.ino, st.size, st.mtime, st.ctime, settled)
}

// ReadSideFileStamped is ReadSideFile, with the stamp of the version
// read (its open file's stat).
func (s *Store) ReadSideFileStamped(zone, kind string) (data []byte, stamp SideFileStamp, ok bool, err error) {
	if err := checkZone(zone); err != nil {
		return nil, stamp, false, fmt.Errorf("reading side file: %w", err)
	}
	if err := checkSideKind(kind); err != nil {
		return nil, stamp, false, err
	}
	start := time.Now()
	path := s.SideFilePath(zone, kind)
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, stamp, false, nil
	}
	if err != nil {
		return nil, stamp, false, fmt.Errorf("reading side file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, stamp, false, fmt.Errorf("reading side file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxSideFile {
		return nil, stamp, false, fmt.Errorf("reading side file %s: not a regular file of at most %d bytes", path, MaxSideFile)
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxSideFile+1))
	if err != nil {
		return nil, stamp, false, fmt.Errorf("reading side file %s: %w", path, err)
	}
	st := stampOf(fi)
	settled := false
	if st.ino != 0 && int64(len(data)) == st.size {
		slack := sideStampSlack
		if st.mtime%int64(time.Second) == 0 && st.ctime%int64(time.Second) == 0 {
			slack = sideStampSlackCoarse
		}
		limit := start.Add(-slack).UnixNano()
		settled = st.mtime < limit && st.ctime < limit
	}
	return data, st.stamp(settled), true, nil
}

// StatSideFile is the stamp of the zone's side file of kind as it is now
// (one lstat, no read), to hold against a read's (Matches); ok is false
// when there is none.
func (s *Store) StatSideFile(zone, kind string) (stamp SideFileStamp, ok bool, err error) {
	if err := checkZone(zone); err != nil {
		return stamp, false, fmt.Errorf("reading side file: %w", err)
	}
	if err := checkSideKind(kind); err != nil {
		return stamp, false, err
	}
	path := s.SideFilePath(zone, kind)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return stamp, false, nil
	}
	if err != nil {
		return stamp, false, fmt.Errorf("reading side file %s: %w", path, err)
	}
	return stampOf(fi).stamp(false), true, nil
}

// SideFileLimit is the largest side file ReplaceSideFile writes
// (MaxSideFile), for writers that check a change before making it.
func (s *Store) SideFileLimit() int { return MaxSideFile }

// ReplaceSideFile writes the zone's side file of kind atomically: a
// temporary file in the zone directory, written and fsynced, renamed over
// the side file, and the directory fsynced. A crash leaves the old file or
// the new one whole (and maybe a temporary file, .<zone>.<kind>.json.tmp-*,
// which RemoveZoneFiles does not remove and nothing reads).
func (s *Store) ReplaceSideFile(zone, kind string, data []byte) error {
	if err := checkZone(zone); err != nil {
		return fmt.Errorf("writing side file: %w", err)
	}
	if err := checkSideKind(kind); err != nil {
		return err
	}
	path := s.SideFilePath(zone, kind)
	if len(data) > MaxSideFile {
		return fmt.Errorf("writing side file %s: %w: %d bytes, over the %d a read takes back", path, zonemodel.ErrSideFileTooLarge, len(data), MaxSideFile)
	}
	tmp, err := os.CreateTemp(s.dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing side file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := writeSync(tmp, data); err != nil {
		return fmt.Errorf("writing side file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing side file %s: %w", path, err)
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("writing side file %s: %w", path, err)
	}
	return nil
}

// RemoveSideFile removes the zone's side file of kind; none is fine.
func (s *Store) RemoveSideFile(zone, kind string) error {
	if err := checkZone(zone); err != nil {
		return fmt.Errorf("removing side file: %w", err)
	}
	if err := checkSideKind(kind); err != nil {
		return err
	}
	path := s.SideFilePath(zone, kind)
	switch err := os.Remove(path); {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("removing side file %s: %w", path, err)
	}
	return syncDir(s.dir)
}

// SideFileZones lists the zones that have a side file of kind (one read
// of the zone directory), so that a listing of many zones reads only the
// side files there are.
func (s *Store) SideFileZones(kind string) (map[string]bool, error) {
	if err := checkSideKind(kind); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("listing side files: %w", err)
	}
	suffix := "." + kind + ".json"
	out := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if base, ok := strings.CutSuffix(n, suffix); ok && !strings.HasPrefix(n, ".") && e.Type().IsRegular() {
			if zone, ok := ZoneOfFileBase(base); ok {
				out[zone] = true
			}
		}
	}
	return out, nil
}

// LockSideFile takes the lock of the zone's side file of kind, as Lock
// takes a zone's (in process, and a byte of <dir>/.zoneapi/side.lock
// across processes, released by the kernel if the process dies), so that
// a read, change and ReplaceSideFile is not interleaved with another's.
// It is apart from the zone's lock: a zone operation may run while it is
// held.
func (s *Store) LockSideFile(ctx context.Context, zone, kind string) (unlock func(), err error) {
	if err := checkZone(zone); err != nil {
		return nil, fmt.Errorf("locking side file: %w", err)
	}
	if err := checkSideKind(kind); err != nil {
		return nil, err
	}
	return lockByte(ctx, filepath.Join(s.meta, sideLockFileName), lockOffset(zone+"\x00"+kind), "side file of zone "+zone)
}
