package sharedhistory

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// Generations is the change history of one directory as zone_api's config
// generations hold it (in module's pool, by directory): opened on first
// use (the backend's resolution) and closed when no config generation
// holds it any more: a reload hands the same open Log to the new
// generation, whose Provision took its reference before the old
// generation's Cleanup gave back its own.
type Generations struct {
	dir string

	mu      sync.Mutex
	log     *history.Log
	release func()
}

// NewGenerations returns the history of dir, not opened yet.
func NewGenerations(dir string) *Generations { return &Generations{dir: dir} }

// Dir is the history's directory.
func (s *Generations) Dir() string { return s.dir }

// Open returns the Log, opening it on first use with opts (Shared); later
// calls apply opts' retention. A failure is not remembered.
func (s *Generations) Open(opts history.Options) (*history.Log, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		s.log.SetRetention(opts.MaxAge, opts.MaxSize)
		return s.log, nil
	}
	l, release, err := Shared(s.dir, opts)
	if err != nil {
		return nil, err
	}
	s.log, s.release = l, release
	return l, nil
}

// Destruct closes the Log; no generation holds it any more
// (caddy.Destructor).
func (s *Generations) Destruct() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.release != nil {
		s.release()
		s.log, s.release = nil, nil
	}
	return nil
}

// OpenUnlessLocked opens the Log (Open) for zone_api's backend: a history
// that another process sharing the zone directory records
// (history.ErrLocked) gives no Log, and a warning; the instance serves
// without it.
func (s *Generations) OpenUnlessLocked(opts history.Options, logger *zap.Logger) (*history.Log, error) {
	l, err := s.Open(opts)
	if errors.Is(err, history.ErrLocked) {
		// Another process (an instance sharing the zone directory)
		// records the history; this one serves without it.
		logger.Warn("the change history is written by another process sharing the zone directory; this instance records none", zap.String("zone_dir", filepath.Dir(filepath.Dir(s.dir))))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening the change history: %w", err)
	}
	return l, nil
}
