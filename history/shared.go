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
	return share(dir, opts, true)
}

// Attach returns the process's Log of dir as Shared does, for a writer
// that does not own the history's settings (the external-dns webhook
// writes into the zone API's history): a Log already open keeps its
// retention, and a Log it opens prunes nothing (no age or size limit)
// until its owner's Shared sets the retention. Shared with zero options
// would apply the default retention: the webhook's first request reset a
// zone API's longer max_age or larger max_size to the defaults, and
// pruned the history to them. Other options (sync_each) are the opener's
// for the Log's life: a Log Attach opens has the defaults.
func Attach(dir string) (*Log, func(), error) {
	return share(dir, Options{MaxAge: -1, MaxSize: -1, SegmentSize: DefaultMaxSize / 16}, false)
}

// share is Shared; setRetention false leaves an open Log's retention.
func share(dir string, opts Options, setRetention bool) (*Log, func(), error) {
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
	} else if setRetention {
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
