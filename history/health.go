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
}

// writeFailed notes a write that failed with err. l.mu is held.
func (l *Log) writeFailed(err error) { l.writeErr = err }

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
