// Package sharedhistory keeps the change histories (package history's
// Logs) that Caddy handlers share, one per directory for the process, in
// a caddy.UsagePool, as package sharedupdater keeps the DNS updaters: a
// holder takes a reference (Shared, Attach) and gives it back with the
// function they return, and the last release closes the Log. A Log locks
// its directory (history.Open), so a second in the process could not
// open it: the zone_api handler's configuration generations (Shared; a
// reload's new generation takes its reference before the old one gives
// its own back, so one Log and one writer go on) and the external-dns
// webhook (Attach), which both write a zone directory's history, write it
// through the one Log here. The NOTIFY listeners the zone server follows
// the history with (AcquireNotify) are kept the same way, by address.
package sharedhistory

import (
	"path/filepath"
	"sync"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// pool maps a history directory (cleaned) to its *pooledLog.
var pool = caddy.NewUsagePool()

// pooledLog is an open Log in the pool.
type pooledLog struct{ log *history.Log }

// Destruct closes the Log: no one holds it any more (caddy.Destructor).
func (p *pooledLog) Destruct() error { return p.log.Close() }

// Shared returns the process's Log of dir, opening it at the first call
// (with opts; a later call sets the retention of its opts), and
// a release function that closes it when the last holder released it
// (calling it again does nothing). A Caddy configuration generation holds
// one while it runs, so that a reload (the new generation starts before
// the old one stops) keeps one Log and one writer.
func Shared(dir string, opts history.Options) (*history.Log, func(), error) {
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
func Attach(dir string) (*history.Log, func(), error) {
	return share(dir, history.Options{MaxAge: -1, MaxSize: -1, SegmentSize: history.DefaultMaxSize / 16}, false)
}

// share is Shared; setRetention false leaves an open Log's retention.
func share(dir string, opts history.Options, setRetention bool) (*history.Log, func(), error) {
	key := filepath.Clean(dir)
	v, loaded, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		l, err := history.Open(key, opts)
		if err != nil {
			return nil, err
		}
		return &pooledLog{log: l}, nil
	})
	if err != nil {
		return nil, nil, err // the pool dropped the failed entry: nothing to release
	}
	l := v.(*pooledLog).log
	if loaded && setRetention {
		l.SetRetention(opts.MaxAge, opts.MaxSize)
	}
	var once sync.Once
	return l, func() { once.Do(func() { _, _ = pool.Delete(key) }) }, nil
}

// OpenLogs returns the Logs held open in this process (for metrics read
// at scrape time), in no particular order.
func OpenLogs() []*history.Log {
	var out []*history.Log
	pool.Range(func(_, v any) bool {
		out = append(out, v.(*pooledLog).log)
		return true
	})
	return out
}
