package history

import (
	"path/filepath"
	"sync"
)

// shared holds the Logs Shared opened, by directory.
var shared = struct {
	sync.Mutex
	m map[string]*sharedLog
}{m: map[string]*sharedLog{}}

type sharedLog struct {
	log  *Log
	refs int
}

// Shared returns the process's Log of dir, opening it at the first call
// (with opts; a later call sets the retention of its opts), and
// a release function that closes it when the last holder released it. A
// Caddy configuration generation holds one while it runs, so that a
// reload (the new generation starts before the old one stops) keeps one
// Log and one writer.
func Shared(dir string, opts Options) (*Log, func(), error) {
	key := filepath.Clean(dir)
	shared.Lock()
	defer shared.Unlock()
	s := shared.m[key]
	if s == nil {
		l, err := Open(key, opts)
		if err != nil {
			return nil, nil, err
		}
		s = &sharedLog{log: l}
		shared.m[key] = s
	} else {
		s.log.SetRetention(opts.MaxAge, opts.MaxSize)
	}
	s.refs++
	var once sync.Once
	return s.log, func() {
		once.Do(func() {
			shared.Lock()
			defer shared.Unlock()
			s.refs--
			if s.refs == 0 {
				delete(shared.m, key)
				s.log.Close()
			}
		})
	}, nil
}

// OpenLogs returns the Logs that Shared holds open in this process (for
// metrics read at scrape time), in no particular order.
func OpenLogs() []*Log {
	shared.Lock()
	defer shared.Unlock()
	out := make([]*Log, 0, len(shared.m))
	for _, s := range shared.m {
		out = append(out, s.log)
	}
	return out
}
