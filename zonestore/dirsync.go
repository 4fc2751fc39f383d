package zonestore

import "sync"

// dirSyncer fsyncs one directory for concurrent callers with group
// commit: a caller returns once an fsync of the directory that started
// after its call has completed, so that whatever it linked, created or
// renamed in the directory before calling is durable; callers arriving
// while an fsync runs share the next one. Creates at concurrency 8 each
// fsynced the zone directory on their own before.
type dirSyncer struct {
	mu       sync.Mutex
	cond     sync.Cond
	started  uint64 // fsyncs started (the number of the last one)
	finished uint64 // the number of the last fsync completed
	running  bool
	failed   uint64 // the number of the last fsync that failed (0: none)
	failure  error
	fsyncs   uint64 // fsyncs run, for tests
	sync     func(dir string) error
}

// Sync returns once an fsync of dir that started after the call has
// completed, with its error; when a later fsync than the caller's own
// failed first, that error (an fsync error may be reported once only).
func (d *dirSyncer) Sync(dir string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cond.L == nil {
		d.cond.L = &d.mu
	}
	mine := d.started + 1 // the first fsync to start from now on
	// An fsync running now may have written back what the caller linked
	// before calling; its failure is the caller's too (a descriptor of
	// its own would have reported it), even when a later one succeeds.
	first := mine
	if d.running {
		first = d.started
	}
	for d.finished < mine {
		if d.running {
			d.cond.Wait()
			continue
		}
		d.running = true
		d.started++
		n := d.started
		sync := d.sync
		if sync == nil {
			sync = syncDir
		}
		d.mu.Unlock()
		err := sync(dir)
		d.mu.Lock()
		d.running = false
		d.finished = n
		d.fsyncs++
		if err != nil {
			d.failed, d.failure = n, err
		}
		d.cond.Broadcast()
	}
	if d.failed >= first {
		return d.failure
	}
	return nil
}
