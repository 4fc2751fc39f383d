package events

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"go.uber.org/zap"
)

// running holds the deliverers that run, by directory, source and
// configuration: a Caddy reload that keeps a webhook's configuration
// keeps its deliverer running (the new generation takes a reference
// before the old one releases its own).
var running = struct {
	sync.Mutex
	m map[string]*runningDeliverer
}{m: map[string]*runningDeliverer{}}

type runningDeliverer struct {
	d      *Deliverer
	refs   int
	cancel context.CancelFunc
	linger *time.Timer // set while no holder has it
}

// Linger is how long a deliverer that no one holds any more keeps
// running: a reload provisions the new configuration and takes the
// webhook again a moment after the old one released it, and then the
// deliverer goes on without a break (an attempt in flight is not cut).
const Linger = 3 * time.Second

// Start runs the deliverer of the checked webhook w over src, keeping its
// state in dir (one file per webhook name), and returns it with the
// function that releases it: the deliverer stops Linger after its last
// holder released it. A deliverer of the same name with another configuration
// (the previous generation of a reload) holds the state's lock until it
// stops; the new one waits for it (PhaseStandby), as it does while
// another process delivers the webhook.
func Start(src Source, dir string, w Webhook, logger *zap.Logger) (*Deliverer, func(), error) {
	// Not keyed by src: a reload may close the history and open it again
	// (a new Log of the same directory), and the deliverer goes on with
	// the new one.
	key := dir + "\x00" + w.fingerprint()
	running.Lock()
	defer running.Unlock()
	r := running.m[key]
	if r == nil {
		d, err := newDeliverer(src, dir, w, logger)
		if err != nil {
			return nil, nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		r = &runningDeliverer{d: d, cancel: cancel}
		running.m[key] = r
		go d.run(ctx)
	}
	r.d.setSource(src)
	r.refs++
	if r.linger != nil {
		r.linger.Stop()
		r.linger = nil
	}
	var once sync.Once
	return r.d, func() {
		once.Do(func() {
			running.Lock()
			defer running.Unlock()
			r.refs--
			if r.refs > 0 {
				return
			}
			r.linger = time.AfterFunc(Linger, func() {
				running.Lock()
				if r.refs > 0 || running.m[key] != r {
					running.Unlock()
					return
				}
				delete(running.m, key)
				running.Unlock()
				r.cancel()
				<-r.d.done
			})
		})
	}, nil
}

// stopNow stops the deliverer at once if no one holds it (tests).
func stopNow(d *Deliverer) {
	running.Lock()
	var r *runningDeliverer
	for k, x := range running.m {
		if x.d == d && x.refs == 0 {
			r = x
			delete(running.m, k)
			x.linger.Stop()
		}
	}
	running.Unlock()
	if r != nil {
		r.cancel()
		<-r.d.done
	}
}

// Status is a webhook's delivery state, as GET /api/v1/events/webhooks
// shows it.
type Status struct {
	// Name identifies the webhook (POST …/webhooks/{name}/retry).
	Name string `json:"name"`
	// URL is the receiver, without user information, query or fragment
	// (they may hold secrets).
	URL string `json:"url"`
	// Types and Zones are the webhook's selection (empty: all).
	Types []string `json:"types,omitempty"`
	Zones []string `json:"zones,omitempty"`
	// State is starting, standby (another process or configuration
	// delivers it), idle, delivering, retrying or stopped.
	State string `json:"state"`
	// Cursor is the ID of the last event settled (delivered, not
	// selected, or a dead letter); Behind counts the history's events
	// after it, of any zone and type.
	Cursor string `json:"cursor"`
	Behind uint64 `json:"behind"`
	// Delivered counts the events acknowledged since the deliverer
	// started.
	Delivered uint64 `json:"delivered"`
	// Attempts failed at the head event so far, the last with
	// LastError; NextAttempt is when it is tried again.
	Attempts    int        `json:"attempts,omitempty"`
	LastError   string     `json:"lastError,omitempty"`
	NextAttempt *time.Time `json:"nextAttempt,omitempty"`
	// DeadLetters are the zones whose events wait for a retry.
	DeadLetters []DeadLetter `json:"deadLetters"`
	// Retrying are the dead zones put back and not yet delivered.
	Retrying []string `json:"retrying,omitempty"`
}

// Name is the webhook's name.
func (d *Deliverer) Name() string { return d.hook.Name }

// Status reports the webhook's delivery state.
func (d *Deliverer) Status() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := Status{
		Name: d.hook.Name, URL: redactURL(d.hook.URL), Types: d.hook.Types, Zones: d.hook.Zones,
		State: d.phase, Delivered: d.delivered, DeadLetters: append([]DeadLetter{}, d.st.Dead...),
	}
	if d.file != nil {
		s.Cursor = fmt.Sprint(d.st.Cursor)
		if last := d.src.Last(); last > d.st.Cursor {
			s.Behind = last - d.st.Cursor
		}
		s.Attempts, s.LastError = d.st.Attempts, d.st.LastError
	}
	if !d.nextAt.IsZero() {
		t := d.nextAt.UTC()
		s.NextAttempt = &t
	}
	for _, r := range d.st.Retry {
		s.Retrying = append(s.Retrying, r.Zone)
	}
	return s
}

// ErrNotHere means the webhook's state is held elsewhere (another
// process, or a configuration generation that is stopping): retry there.
var ErrNotHere = errors.New("this webhook is delivered by another process or configuration generation")

// Retry puts the webhook's dead letters back in the queue, ahead of the
// events after the cursor, and makes a waiting retry happen now. It
// returns how many zones were put back.
func (d *Deliverer) Retry() (int, error) {
	d.mu.Lock()
	if d.file == nil {
		d.mu.Unlock()
		return 0, ErrNotHere
	}
	n := len(d.st.Dead)
	for _, dl := range d.st.Dead {
		d.st.Retry = append(d.st.Retry, retryZone{Zone: dl.Zone, View: dl.View, After: dl.seq - 1})
	}
	d.st.Dead = nil
	d.dirty = true
	d.saveLocked()
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
	return n, nil
}

// deadLetters counts the events waiting as dead letters.
func (d *Deliverer) deadLetters() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, dl := range d.st.Dead {
		n += 1 + dl.Held
	}
	return n
}

// redactURL drops what may hold secrets: user information, query and
// fragment.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
