package auth

import (
	"sync"

	"github.com/caddyserver/caddy/v2"
)

// limitsPool holds the process's one *Limits (key limitsKey) while a Guard
// holds it, as Caddy's reverse proxy keeps its hosts: the host takes a
// reference for each Guard it provisions (AcquireLimits) and gives it back
// when that Guard's configuration generation has finished its last request
// (Guard.Release). Caddy provisions the new configuration before it cleans
// the old one up, so a reload hands the same Limits over: a limit the
// reload keeps keeps its buckets, and the expensive reads the old
// generation still serves count against the new one's (neither forgotten
// nor doubled). A reload that changes a limit keeps its buckets too,
// and what each subject spent (bucket).
var limitsPool = caddy.NewUsagePool()

// limitsKey is the key of the process's Limits in limitsPool.
const limitsKey = "limits"

// Limits is the state of the request limits of the Guards that hold it:
// every token bucket (keyed by the limit's kind, the Guard's LimitName
// and the subject, so that Guards of one name share their buckets) and
// each subject's expensive reads in flight.
type Limits struct {
	buckets *bucketTable
	reads   *inFlight
	pooled  bool // held in limitsPool (AcquireLimits)
}

// NewLimits returns limits of their own, outside the pool (a Guard built
// without AcquireLimits makes its own at first use).
func NewLimits() *Limits {
	return &Limits{buckets: newBucketTable(maxLimiters), reads: &inFlight{max: MaxExpensiveReads, n: map[string]int{}}}
}

// Destruct does nothing: the limits hold no resource (caddy.Destructor,
// for the pool).
func (*Limits) Destruct() error { return nil }

// AcquireLimits takes a reference to the process's Limits, for a Guard
// (Guard.Limits); the Guard's Release gives it back.
func AcquireLimits() *Limits {
	v, _, _ := limitsPool.LoadOrNew(limitsKey, func() (caddy.Destructor, error) {
		l := NewLimits()
		l.pooled = true
		return l, nil
	})
	return v.(*Limits)
}

// guardState is what a Guard keeps besides its configuration: the limits
// it made for itself when it was given none, and whether it gave its
// pooled reference back.
type guardState struct {
	once     sync.Once
	own      *Limits
	released sync.Once
}

// limits returns the Guard's Limits: those it was given, else its own.
func (g *Guard) limits() *Limits {
	if g.Limits != nil {
		return g.Limits
	}
	g.state.once.Do(func() { g.state.own = NewLimits() })
	return g.state.own
}

// Release gives back the reference to the process's Limits that the
// Guard was given by AcquireLimits, once (later calls, and a Guard with
// limits of its own, do nothing). Call it when the Guard's last request
// has finished.
func (g *Guard) Release() {
	if g == nil || g.Limits == nil || !g.Limits.pooled {
		return
	}
	g.state.released.Do(func() { _, _ = limitsPool.Delete(limitsKey) })
}
