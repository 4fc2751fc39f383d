package sharedhistory

import (
	"sync"

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
