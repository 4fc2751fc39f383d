package events

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Source is where events come from: the change history (its
// frontend.ChangeLog).
type Source interface {
	frontend.ChangeReader
	frontend.ChangeWatcher
	frontend.ChangeBounds
}

// batchSize is how many entries one read of the history takes.
const batchSize = 256

// saveEvery bounds how often the cursor is written while deliveries go
// well: a crash loses at most that much progress, whose events are then
// delivered again (at least once). Failures and dead letters are
// written at once. A write (a new file, its fsync, a rename) cost about
// 4 ms of CPU here, 8% of Caddy's at c=8 when it was every 200 ms
// (BenchmarkEvents' profiles).
const saveEvery = time.Second

// Deliverer delivers the events to one webhook, from its durable cursor
// into the history. Start runs it; its methods are safe for concurrent
// use.
type Deliverer struct {
	hook   Webhook
	signer *Signer
	poster *poster // used by run's goroutine only
	dir    string
	logger *zap.Logger
	kick   chan struct{}
	done   chan struct{}

	mu        sync.Mutex
	src       Source     // the history; Start swaps it when a reload reopened it
	file      *stateFile // nil until the lock is held
	st        state
	phase     string
	nextAt    time.Time
	dirty     bool
	lastSave  time.Time
	delivered uint64
}

// The phases of a Deliverer, as Status reports them.
const (
	PhaseStarting   = "starting"   // not yet holding its state
	PhaseStandby    = "standby"    // another process (or configuration) delivers the webhook
	PhaseIdle       = "idle"       // everything selected is delivered (or dead)
	PhaseDelivering = "delivering" // an attempt is under way
	PhaseRetrying   = "retrying"   // waiting to try the head event again
	PhaseStopped    = "stopped"
)

// outcome is how one event's delivery ended.
type outcome int

const (
	delivered outcome = iota
	dead
	stopped
)

// newDeliverer returns a Deliverer of the checked webhook w, keeping its
// state in dir.
func newDeliverer(src Source, dir string, w Webhook, logger *zap.Logger) (*Deliverer, error) {
	s, err := NewSigner(w.Secret)
	if err != nil {
		return nil, err
	}
	p, err := newPoster(w.URL, w.Timeout)
	if err != nil {
		return nil, err
	}
	return &Deliverer{
		hook: w, signer: s, poster: p, src: src, dir: dir, logger: logger,
		kick:  make(chan struct{}, 1),
		done:  make(chan struct{}),
		phase: PhaseStarting,
	}, nil
}

// run delivers until ctx ends.
func (d *Deliverer) run(ctx context.Context) {
	defer close(d.done)
	defer d.setPhase(PhaseStopped)
	defer d.poster.close()
	if !d.acquire(ctx) {
		return
	}
	defer func() {
		d.mu.Lock()
		d.saveLocked()
		f := d.file
		d.file = nil
		d.mu.Unlock()
		f.unlock()
	}()
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	defer flush.Stop()
	for ctx.Err() == nil {
		d.mu.Lock()
		retry := len(d.st.Retry) > 0
		d.mu.Unlock()
		if retry {
			d.redeliver(ctx)
			continue
		}
		changed := d.source().Changed()
		full, err := d.forward(ctx)
		if err != nil {
			d.logger.Error("reading the change history for a webhook", zap.String("webhook", d.hook.Name), zap.Error(err))
			sleep(ctx, time.Second, nil)
			continue
		}
		if full {
			continue
		}
		// Idle: the cursor is written at most every saveEvery (under
		// a steady stream of changes the deliverer idles after every
		// batch, and a write per batch would cost an fsync each).
		d.mu.Lock()
		d.phase = PhaseIdle
		var flushC <-chan time.Time
		if d.dirty {
			if wait := saveEvery - time.Since(d.lastSave); wait <= 0 {
				d.saveLocked()
			} else {
				flush.Reset(wait) // one timer, not one per idle
				flushC = flush.C
			}
		}
		d.mu.Unlock()
		select {
		case <-changed:
		case <-d.kick:
		case <-flushC:
			d.mu.Lock()
			d.saveLocked()
			d.mu.Unlock()
		case <-ctx.Done():
		}
		flush.Stop()
	}
}

// acquire takes the webhook's lock and loads its state, waiting while
// another holder has it; false when ctx ended first.
func (d *Deliverer) acquire(ctx context.Context) bool {
	for {
		f, err := lockState(d.dir, d.hook.Name)
		if err == nil {
			st, ok, err := f.load()
			if err != nil {
				d.logger.Error("a webhook's state is unreadable; starting it afresh from the history's end", zap.String("webhook", d.hook.Name), zap.Error(err))
			}
			if !ok || st.URL != d.hook.URL {
				// A new webhook gets the events from now on.
				st = state{URL: d.hook.URL, Cursor: d.source().Last()}
			}
			d.mu.Lock()
			d.file, d.st, d.dirty = f, st, true
			d.saveLocked()
			d.mu.Unlock()
			return true
		}
		d.setPhase(PhaseStandby)
		if err != errBusy {
			d.logger.Error("locking a webhook's state", zap.String("webhook", d.hook.Name), zap.Error(err))
		}
		if !sleep(ctx, 250*time.Millisecond, nil) {
			return false
		}
	}
}

// forward delivers the entries after the cursor, one batch; full when
// the batch was full (more may follow at once).
func (d *Deliverer) forward(ctx context.Context) (full bool, err error) {
	d.mu.Lock()
	cursor, src := d.st.Cursor, d.src
	d.mu.Unlock()
	if first := src.First(); cursor+1 < first {
		d.logger.Warn("events were dropped by the history's retention before this webhook got them", zap.String("webhook", d.hook.Name), zap.Uint64("from", cursor+1), zap.Uint64("to", first-1))
		metrics.lost.WithLabelValues(d.hook.Name).Add(float64(first - 1 - cursor))
		cursor = first - 1
		d.advance(cursor)
	}
	last := src.Last()
	batch, err := src.Read(cursor, zonemodel.ChangeFilter{Types: d.hook.Types}, batchSize)
	if err != nil {
		return false, err
	}
	for _, e := range batch {
		switch {
		case !d.hook.Selects(e):
			d.advance(e.Seq)
		case d.hold(e):
		default:
			if d.deliver(ctx, e, false) == stopped {
				return false, nil
			}
		}
	}
	if len(batch) < batchSize {
		// Read saw every entry up to last: none after the batch is
		// selected.
		d.advance(last)
	}
	return len(batch) == batchSize, nil
}

// advance moves the cursor to seq (never back).
func (d *Deliverer) advance(seq uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if seq > d.st.Cursor {
		d.st.Cursor, d.dirty = seq, true
	}
	if time.Since(d.lastSave) >= saveEvery {
		d.saveLocked()
	}
}

// hold makes e a dead letter without trying it when an earlier event of
// its zone is one, so that the zone's events stay in order; it reports
// whether it did.
func (d *Deliverer) hold(e zonemodel.ChangeEntry) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.st.Dead) == 0 {
		return false
	}
	k := zoneKey(e.Zone, e.View)
	for i := range d.st.Dead {
		if zoneKey(d.st.Dead[i].Zone, d.st.Dead[i].View) == k {
			d.st.Dead[i].Held++
			if e.Seq > d.st.Cursor {
				d.st.Cursor = e.Seq
			}
			d.dirty = true
			metrics.deadLettered.WithLabelValues(d.hook.Name).Inc()
			return true
		}
	}
	return false
}

// deliver posts e until it is acknowledged, becomes a dead letter, or ctx
// ends. Unless retried is set (a dead letter put back), the cursor moves
// past e when it is settled.
func (d *Deliverer) deliver(ctx context.Context, e zonemodel.ChangeEntry, retried bool) outcome {
	payload, err := e.JSON()
	if err != nil {
		d.deadLetter(e, 0, err, retried)
		return dead
	}
	id := MessageID(e.ID)
	for {
		d.setPhase(PhaseDelivering)
		err := d.post(ctx, id, payload)
		if ctx.Err() != nil {
			return stopped
		}
		now := time.Now()
		d.mu.Lock()
		if err == nil {
			d.st.Attempts, d.st.FirstFailure, d.st.LastError = 0, time.Time{}, ""
			if !retried && e.Seq > d.st.Cursor {
				d.st.Cursor = e.Seq
			}
			d.delivered++
			d.dirty = true
			if time.Since(d.lastSave) >= saveEvery {
				d.saveLocked()
			}
			d.mu.Unlock()
			metrics.delivered.WithLabelValues(d.hook.Name).Inc()
			return delivered
		}
		d.st.Attempts++
		if d.st.FirstFailure.IsZero() {
			d.st.FirstFailure = now
		}
		d.st.LastError = err.Error()
		attempts, first := d.st.Attempts, d.st.FirstFailure
		d.dirty = true
		d.saveLocked()
		d.mu.Unlock()
		if now.Sub(first) >= d.hook.DeadAfter {
			d.deadLetter(e, attempts, err, retried)
			return dead
		}
		metrics.retried.WithLabelValues(d.hook.Name).Inc()
		wait := backoff(d.hook.RetryMin, d.hook.RetryMax, attempts)
		d.mu.Lock()
		d.phase, d.nextAt = PhaseRetrying, now.Add(wait)
		d.mu.Unlock()
		if !sleep(ctx, wait, d.kick) {
			return stopped
		}
	}
}

// backoff is the wait after the n-th failed attempt: min doubled n-1
// times, at most max.
func backoff(min, max time.Duration, n int) time.Duration {
	w := min
	for i := 1; i < n && w < max; i++ {
		w *= 2
	}
	return minDur(w, max)
}

func minDur(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

// post makes one delivery attempt: nil when the receiver answered 2xx.
func (d *Deliverer) post(ctx context.Context, id string, payload []byte) error {
	return d.poster.post(ctx, d.signer, id, payload)
}

// deadLetter makes e a dead letter after attempts failed ones.
func (d *Deliverer) deadLetter(e zonemodel.ChangeEntry, attempts int, err error, retried bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.Dead = append(d.st.Dead, DeadLetter{
		Zone: e.Zone, View: e.View, ID: e.ID, Type: e.Type,
		Attempts: attempts, Error: err.Error(), Since: time.Now().UTC(), seq: e.Seq,
	})
	d.st.Attempts, d.st.FirstFailure, d.st.LastError = 0, time.Time{}, ""
	if !retried && e.Seq > d.st.Cursor {
		d.st.Cursor = e.Seq
	}
	d.dirty = true
	d.saveLocked()
	metrics.deadLettered.WithLabelValues(d.hook.Name).Inc()
	d.logger.Warn("a webhook's event became a dead letter; later events of its zone wait behind it until retried",
		zap.String("webhook", d.hook.Name), zap.String("zone", e.Zone), zap.String("id", e.ID), zap.Int("attempts", attempts), zap.Error(err))
}

// redeliver delivers the first dead zone put back by Retry: its selected
// events after its After up to the cursor, one batch.
func (d *Deliverer) redeliver(ctx context.Context) {
	d.mu.Lock()
	r, cursor, src := d.st.Retry[0], d.st.Cursor, d.src
	d.mu.Unlock()
	if first := src.First(); r.After+1 < first {
		d.logger.Warn("dead letters were dropped by the history's retention before they were retried", zap.String("webhook", d.hook.Name), zap.String("zone", r.Zone))
	}
	batch, err := src.Read(r.After, zonemodel.ChangeFilter{Zone: r.Zone, Types: d.hook.Types}, batchSize)
	if err != nil {
		d.logger.Error("reading the change history for a webhook", zap.String("webhook", d.hook.Name), zap.Error(err))
		sleep(ctx, time.Second, nil)
		return
	}
	finished := len(batch) < batchSize
	for i, e := range batch {
		if e.Seq > cursor {
			finished = true
			break
		}
		if e.View == r.View && d.hook.Selects(e) {
			switch d.deliver(ctx, e, true) {
			case stopped:
				return
			case dead:
				// The rest of the zone's events up to the cursor wait
				// behind it again.
				held := 0
				for _, x := range batch[i+1:] {
					if x.Seq <= cursor && x.View == r.View && d.hook.Selects(x) {
						held++
					}
				}
				d.mu.Lock()
				d.st.Dead[len(d.st.Dead)-1].Held = held
				d.st.Retry = d.st.Retry[1:]
				d.dirty = true
				d.saveLocked()
				d.mu.Unlock()
				return
			}
		}
		d.mu.Lock()
		d.st.Retry[0].After = e.Seq
		d.dirty = true
		d.mu.Unlock()
	}
	if finished {
		d.mu.Lock()
		d.st.Retry = d.st.Retry[1:]
		d.dirty = true
		d.saveLocked()
		d.mu.Unlock()
	}
}

// saveLocked writes the state if it changed. d.mu is held.
func (d *Deliverer) saveLocked() {
	if !d.dirty || d.file == nil {
		return
	}
	if err := d.file.save(&d.st); err != nil {
		d.logger.Error("writing a webhook's state", zap.String("webhook", d.hook.Name), zap.Error(err))
		return
	}
	d.dirty, d.lastSave = false, time.Now()
}

// source returns the history the deliverer reads.
func (d *Deliverer) source() Source {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.src
}

// setSource makes the deliverer read src from now on (a reload closed
// the history and opened it again) and wakes it.
func (d *Deliverer) setSource(src Source) {
	d.mu.Lock()
	changed := d.src != src
	d.src = src
	d.mu.Unlock()
	if changed {
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
}

// setPhase records what the deliverer does.
func (d *Deliverer) setPhase(p string) {
	d.mu.Lock()
	d.phase = p
	if p != PhaseRetrying {
		d.nextAt = time.Time{}
	}
	d.mu.Unlock()
}

// sleep waits for d, ctx or wake; false when ctx ended.
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
		return false
	}
	return true
}
