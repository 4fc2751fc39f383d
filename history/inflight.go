package history

import (
	"context"
	"sync"
)

// A record change one writer of the process makes on a zone whose history
// this Log keeps does not take turns with another writer's catch-up: once
// named applied it, named's NOTIFY may start that catch-up, which then
// reads the change from named's IXFR before the writer that made it has
// enqueued its entry, and the change was recorded as external, without who
// made it (EnqueueChanges keeps the first of the two). So each record
// change is registered on the Log (Writing), by view and zone, from before
// its UPDATE is sent until its entry is enqueued (or the change failed),
// and a catch-up waits for the changes of the other writers in flight
// (AwaitOthers) before it enqueues what it read. The registry is the Log's
// because the Log is what the writers share: every service of the process
// that records a zone's changes holds the same Log for its directory.

// inflight holds a Log's record changes in flight. They are few (one per
// writer waiting on named at a time), so a catch-up's AwaitOthers looks
// through all of them for its zone's, and a change in flight costs one
// write and its end function, not a map and a channel of its own: a
// change's done channel is made only when a catch-up waits for it.
type inflight struct {
	mu sync.Mutex
	m  map[*inflightWrite]struct{}
}

type inflightKey struct{ view, zone string }

// inflightWrite is one record change in flight on key's zone: by is the
// writer that sends it; done, made by the first AwaitOthers that waits
// for it (under inflight.mu), is closed when it ends.
type inflightWrite struct {
	key  inflightKey
	by   any
	done chan struct{}
}

// Writing registers a record change of zone (as the caller names it) in
// view that writer by is making, and returns the function that ends it:
// run it once the change's entry is enqueued or the change failed; a
// second run does nothing. by is compared with AwaitOthers's by (==).
func (l *Log) Writing(view, zone string, by any) (end func()) {
	w := &inflightWrite{key: inflightKey{view, zone}, by: by}
	in := &l.inflight
	in.mu.Lock()
	if in.m == nil {
		in.m = map[*inflightWrite]struct{}{}
	}
	in.m[w] = struct{}{}
	in.mu.Unlock()
	return func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		if _, ok := in.m[w]; !ok {
			return
		}
		delete(in.m, w)
		if w.done != nil {
			close(w.done)
		}
	}
}

// AwaitOthers waits until the record changes of zone in view that writers
// other than by have in flight now (Writing) have ended, or ctx ends.
func (l *Log) AwaitOthers(ctx context.Context, view, zone string, by any) {
	k := inflightKey{view, zone}
	in := &l.inflight
	in.mu.Lock()
	var wait []chan struct{}
	for w := range in.m {
		if w.key == k && w.by != by {
			if w.done == nil {
				w.done = make(chan struct{})
			}
			wait = append(wait, w.done)
		}
	}
	in.mu.Unlock()
	for _, done := range wait {
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// FirstCatchUp reports whether this is the first call on l: its holder
// then reads what named changed while no Log was open (a catch-up), once
// per Log and process, not at every config reload that hands the Log
// over to a new generation.
func (l *Log) FirstCatchUp() bool { return !l.caughtUp.Swap(true) }
