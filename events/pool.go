package events

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// deliverers holds the deliverers that run, by directory and
// configuration (a *pooledDeliverer each), while someone holds them: each
// Start takes a reference, and its release gives it back Linger later.
// So a Caddy reload that keeps a webhook's configuration keeps its
// deliverer running (the new generation takes its reference before the
// old one's is given back), and the last holder's release stops the
// deliverer Linger after it, unless a holder took it again meanwhile.
var deliverers = caddy.NewUsagePool()

// pooledDeliverer is a running deliverer, in deliverers.
type pooledDeliverer struct {
	d      *Deliverer
	cancel context.CancelFunc

	mu sync.Mutex
	// lingering are the releases given and not yet carried out (their
	// timers run until Linger after the release).
	lingering map[*time.Timer]bool
}

// Destruct stops the deliverer once no one holds it (caddy.Destructor):
// an attempt in flight is cut, its state saved, its lock released.
func (p *pooledDeliverer) Destruct() error {
	p.cancel()
	<-p.d.done
	return nil
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
	v, _, err := deliverers.LoadOrNew(key, func() (caddy.Destructor, error) {
		d, err := newDeliverer(src, dir, w, logger)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		go d.run(ctx)
		return &pooledDeliverer{d: d, cancel: cancel, lingering: map[*time.Timer]bool{}}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	p := v.(*pooledDeliverer)
	p.d.setSource(src)
	var once sync.Once
	return p.d, func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			var t *time.Timer
			t = time.AfterFunc(Linger, func() {
				p.mu.Lock()
				ours := p.lingering[t]
				delete(p.lingering, t)
				p.mu.Unlock()
				if ours { // else stopNow gave the reference back
					_, _ = deliverers.Delete(key)
				}
			})
			p.lingering[t] = true
		})
	}, nil
}

// stopNow gives back at once the references of d released and still
// lingering, which stops d if no one else holds it (tests).
func stopNow(d *Deliverer) {
	var key any
	var p *pooledDeliverer
	deliverers.Range(func(k, v any) bool {
		if x := v.(*pooledDeliverer); x.d == d {
			key, p = k, x
			return false
		}
		return true
	})
	if p == nil {
		return
	}
	p.mu.Lock()
	n := 0
	for t := range p.lingering {
		t.Stop() // or it fired, and leaves the reference to us
		delete(p.lingering, t)
		n++
	}
	p.mu.Unlock()
	for range n {
		_, _ = deliverers.Delete(key)
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
