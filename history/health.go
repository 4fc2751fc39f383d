package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// health is what a Log knows of its own writes failing, for readiness
// (docs/history.md, "When the history cannot be written").
type health struct {
	// writeErr is the error of the last write when it failed, nil after
	// a write or a Check succeeded. Guarded by Log.mu.
	writeErr error
	// The zones' serials as the entries written to the file (and
	// baselines) left them are zoneState's written.

	// writeFile replaces a batch's write to its segment (tests that
	// make it fail; set under Log.mu before the first append).
	writeFile func(*os.File, []byte) error
}

// write writes a batch's lines to the active segment f.
func (l *Log) write(f *os.File, b []byte) error {
	if l.writeFile != nil {
		return l.writeFile(f, b)
	}
	_, err := f.Write(b)
	return err
}

// wrote notes entries written to the file (zoneState's written). l.mu
// is held.
func (l *Log) wrote(es []Entry) {
	for _, e := range es {
		k := l.key(e.Zone, e.View)
		z := l.zones[k]
		switch {
		case e.Type == ZoneDeleted:
			z.written, z.hasWritten = 0, false
		case e.SerialAfter != nil:
			z.written, z.hasWritten = *e.SerialAfter, true
		default:
			continue
		}
		put(l.zones, k, z)
	}
}

// writeFailed notes a write of es that failed with err. The changes of
// es are not in the history, so each zone whose last serial is still
// the one es left it at goes back to its serial as written: the next
// change's gap check, a NOTIFY's catch-up and the start-up catch-up then
// record them from named's journal (as external; the entries themselves
// are logged by the zone service). A zone enqueued again since keeps
// its serial. l.mu is held.
func (l *Log) writeFailed(err error, es []Entry) {
	l.writeErr = err
	after := map[string]uint32{}
	for _, e := range es {
		if e.SerialAfter != nil && e.Type != ZoneDeleted {
			after[zoneKey(e.Zone, e.View)] = *e.SerialAfter
		}
	}
	for k, s := range after {
		z := l.zones[k]
		if !z.hasSerial || z.serial != s {
			continue
		}
		z.serial, z.hasSerial = z.written, z.hasWritten
		put(l.zones, k, z)
	}
}

// Check reports whether the Log can write: nil when its last write
// succeeded (or it has written nothing yet); when the last write failed,
// whether the history's directory takes a write and an fsync again (a
// file written, synced and removed), which clears the failure; ErrClosed
// once the Log is closed. It never writes an entry.
func (l *Log) Check() error {
	l.mu.Lock()
	closed, werr := l.closed, l.writeErr
	l.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if werr == nil {
		return nil
	}
	if err := probeDir(l.dir); err != nil {
		return fmt.Errorf("%w (and the history's directory still takes no write: %v)", werr, err)
	}
	l.mu.Lock()
	if l.writeErr == werr {
		l.writeErr = nil
	}
	l.mu.Unlock()
	return nil
}

// probeDir writes, fsyncs and removes a small file in dir.
func probeDir(dir string) error {
	p := filepath.Join(dir, ".probe")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, 512))
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close(), os.Remove(p))
	return err
}

// syncFailed notes a background fsync of the active segment that failed:
// the entries written since the last one may not survive a power loss
// (an OS that reports the error once may have dropped them from its
// cache). It counts (SyncErrors) and makes Check report the failure, as a
// failed write does, until the history's directory takes a write and an
// fsync again.
//
// The fsync of a segment a rotation closed meanwhile (after the syncer
// took it) is not a failure: the rotation fsynced it before it closed it
// (saveState), and nothing was written to it since.
func (l *Log) syncFailed(err error) {
	if errors.Is(err, os.ErrClosed) {
		return
	}
	l.syncErrs.Add(1)
	l.mu.Lock()
	l.writeErr = err
	l.mu.Unlock()
}

// SyncErrors returns how many background fsyncs of the history failed
// since the Log was opened (for metrics).
func (l *Log) SyncErrors() uint64 { return l.syncErrs.Load() }

// CountNotRecorded counts n entries of changes that were made but that
// could not be written to the history, which their writer logged instead
// (the zone service's policy, docs/history.md). The count is the Log's,
// so that every writer of the directory (the zone API, the external-dns
// webhook) adds to one.
func (l *Log) CountNotRecorded(n int) { l.notRecorded.Add(uint64(n)) }

// NotRecorded returns how many entries CountNotRecorded counted since
// the Log was opened (zoneapi_history_write_errors_total).
func (l *Log) NotRecorded() uint64 { return l.notRecorded.Load() }
