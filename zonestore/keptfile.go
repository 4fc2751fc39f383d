package zonestore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// Kept files hold what another part of the module keeps between runs
// about named rather than about one zone (the zone inventory's last
// snapshot): <dir>/.zoneapi/<name>.kept, written whole and atomically
// (ReplaceKeptFile), read whole (ReadKeptFile). What is in them is their
// writer's business; a lost one costs only the work of learning it again.

// keptNameRE is what a kept file's name may be.
var keptNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

func (s *Store) keptPath(name string) (string, error) {
	if !keptNameRE.MatchString(name) {
		return "", fmt.Errorf("kept file name %q: want lower-case letters, digits and hyphens", name)
	}
	return filepath.Join(s.meta, name+".kept"), nil
}

// ReplaceKeptFile writes the kept file name atomically: a temporary file
// beside it, written and fsynced, renamed over it, and the directory
// fsynced. A crash leaves the old file or the new one whole.
func (s *Store) ReplaceKeptFile(name string, data []byte) error {
	path, err := s.keptPath(name)
	if err != nil {
		return err
	}
	if err := replaceFile(path, data, func() {}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadKeptFile reads the kept file name whole; ok is false when there is
// none. A file over max bytes is an error.
func (s *Store) ReadKeptFile(name string, max int64) (data []byte, ok bool, err error) {
	path, err := s.keptPath(name)
	if err != nil {
		return nil, false, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, false, fmt.Errorf("reading %s: over %d bytes", path, max)
	}
	return data, true, nil
}
