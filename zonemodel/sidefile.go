package zonemodel

import "errors"

// SideKindPowerDNS is the PowerDNS API's side file kind (the zone
// directory's <zone>.pdns.json; package zonestore keeps the files).
const SideKindPowerDNS = "pdns"

// MaxSideFile is the largest side file kept: a larger one could not be
// read back (zonestore's ReadSideFile), so a write that would make one
// fails with ErrSideFileTooLarge.
const MaxSideFile = 64 << 20

// ErrSideFileTooLarge is the error of a side file write of more than
// MaxSideFile bytes (nothing is written).
var ErrSideFileTooLarge = errors.New("side file too large")

// SideFileStamp identifies one version of a side file, from a stat of it
// (device, inode, size, modification and change times), so that a
// reader may keep what it made of the file's bytes and know, by a stat
// (StatSideFile) instead of a read, that the file is still the one it
// read (Matches), whichever process or store wrote it since. The zero
// stamp never matches. Package zonestore makes them.
type SideFileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
	// settled is set by a read (ReadSideFileStamped) of a file whose
	// times are older than the read by the store's slack: a later
	// version of the file cannot carry the same times.
	settled bool
}

// NewSideFileStamp is the stamp of a file's stat: its device, inode,
// size, and modification and change times in nanoseconds; settled as
// the store decided (a read made when the times were settled).
func NewSideFileStamp(dev, ino uint64, size, mtime, ctime int64, settled bool) SideFileStamp {
	return SideFileStamp{dev: dev, ino: ino, size: size, mtime: mtime, ctime: ctime, settled: settled}
}

// Matches reports whether a later stamp (StatSideFile's) is of the very
// version of the file that this stamp's read (ReadSideFileStamped) read:
// the same device, inode, size and times, and this read made when those
// times were settled. Each ReplaceSideFile makes a new inode (a rename
// over the file); an inode number used again, or a file changed in
// place, would show the same times only if written within the file
// system's timestamp tick of the read's version, which a settled read
// rules out (unless the clock is set back by more than the store's
// slack).
func (s SideFileStamp) Matches(later SideFileStamp) bool {
	later.settled = s.settled
	return s.settled && s == later
}
