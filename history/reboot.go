package history

import (
	"bytes"
	"os"
	"path/filepath"
)

// The entries written in the last moments before an operating-system
// crash or a power loss may be lost (they were not fsynced yet; see
// Options.SyncEach), and their Seqs would then be given again to other
// entries after the restart. Those Seqs may have been seen already: a
// webhook receiver keeps webhook-ids to drop duplicates, an event-stream
// client resumes after its Last-Event-ID. So that a Seq is never reused,
// the Log notes in a file while it is open which boot of the machine
// opened it; when the next Open finds the file of another boot (the Log
// was not closed, and the machine restarted), the Seqs continue
// rebootGap higher. A crash of the process alone loses nothing written
// (the operating system keeps it), and the Seqs go on.

// runningFile holds the boot ID of the machine while a Log has the
// directory open.
const runningFile = "running"

// rebootGap is how many Seqs are skipped after an operating-system crash:
// more than the entries written while an fsync is awaited.
const rebootGap = 1 << 20

// bootIDPath is the Linux kernel's ID of the current boot.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

// bootID returns the current boot's ID, read from path (bootIDPath when
// ""), or "" where it is not known.
func bootID(path string) []byte {
	if path == "" {
		path = bootIDPath
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return bytes.TrimSpace(b)
}

// markRunning reports whether the Log was left open by an earlier boot
// (or by some run where the boot is not known), and notes the current
// boot as the one that has it open, durably. A note that cannot be
// written (a full disk) does not stop the Log: only the gap after a
// crash of the machine while it is open is then missing.
func (l *Log) markRunning() (rebooted bool) {
	path := filepath.Join(l.dir, runningFile)
	boot := bootID(l.opts.bootIDFile)
	if prev, err := os.ReadFile(path); err == nil {
		rebooted = len(boot) == 0 || !bytes.Equal(bytes.TrimSpace(prev), boot)
	}
	f, err := os.OpenFile(path+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return rebooted
	}
	_, err = f.Write(append(boot, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err == nil {
		_ = syncDir(l.dir)
	}
	return rebooted
}

// markClosed removes the note of markRunning (at Close: every entry is
// fsynced). Not made durable: a crash that undoes it costs a gap only.
func (l *Log) markClosed() {
	_ = os.Remove(filepath.Join(l.dir, runningFile))
}
