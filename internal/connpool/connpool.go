// Package connpool keeps idle connections for reuse: the one idle pool of
// the rndc control-channel client and the DNS client of package
// dnsupdate. It hands out the most recently returned connection first,
// drops connections idle for too long (named closes them on its side),
// holds at most a given number, and after Close keeps none.
package connpool

import (
	"io"
	"sync"
	"time"
)

// Pool is a pool of idle connections. The zero value is an empty, open
// pool; it is safe for concurrent use.
type Pool[C io.Closer] struct {
	// Discard, if set, closes a connection the pool drops (stale, over
	// the limit, or the pool closed); the default is its Close method.
	Discard func(C)

	mu     sync.Mutex
	idle   []entry[C]
	closed bool
}

type entry[C io.Closer] struct {
	conn  C
	since time.Time
}

// Get returns the most recently returned connection that has been idle
// for less than maxAge, dropping older ones; ok is false when there is
// none.
func (p *Pool[C]) Get(maxAge time.Duration) (conn C, ok bool) {
	var stale []C
	now := time.Now()
	p.mu.Lock()
	for len(p.idle) > 0 {
		e := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if now.Sub(e.since) < maxAge {
			conn, ok = e.conn, true
			break
		}
		stale = append(stale, e.conn)
	}
	p.mu.Unlock()
	p.drop(stale...)
	return conn, ok
}

// Put keeps conn for reuse and reports true, unless the pool is closed or
// already holds max connections: then it drops conn and reports false (a
// max of zero or less keeps none).
func (p *Pool[C]) Put(conn C, max int) bool {
	p.mu.Lock()
	if p.closed || len(p.idle) >= max {
		p.mu.Unlock()
		p.drop(conn)
		return false
	}
	p.idle = append(p.idle, entry[C]{conn, time.Now()})
	p.mu.Unlock()
	return true
}

// CloseIdle drops the idle connections. The pool stays usable.
func (p *Pool[C]) CloseIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, e := range idle {
		p.drop(e.conn)
	}
}

// Close drops the idle connections and keeps none from now on: Put drops
// what it is given.
func (p *Pool[C]) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.CloseIdle()
}

func (p *Pool[C]) drop(conns ...C) {
	for _, c := range conns {
		if p.Discard != nil {
			p.Discard(c)
		} else {
			_ = c.Close()
		}
	}
}
