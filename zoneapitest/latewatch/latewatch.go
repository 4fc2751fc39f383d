// Package latewatch is a connection on which the watch of a context
// (context.AfterFunc setting a deadline in the past when the context
// ends) lands late, as a goroutine scheduled late would: in the middle of
// the next exchange on a connection that was kept for reuse. The tests of
// rndc's pooled connections and of the webhooks' kept-alive one use it.
package latewatch

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Past is the deadline a watch sets to interrupt the connection's I/O.
var Past = time.Unix(1, 0)

// Conn holds the watch's deadline in the past (Past) until the
// connection, written to meanwhile, is read again (or closed): the watch
// then lands in the middle of the next exchange.
type Conn struct {
	net.Conn
	// AfterRead, when set, is called with what each Read read (rndc's
	// test cancels the context once a whole reply has been read).
	AfterRead func(p []byte)

	wrote     atomic.Bool // written to since Late
	fireOnce  sync.Once
	closeOnce sync.Once

	// Late is closed when the watch's deadline is asked for; Closed
	// when the connection is closed.
	Late, Closed chan struct{}
	fire         chan struct{} // closed when it is to land
	landed       chan struct{} // closed once it has
}

// New returns c with its watch held back.
func New(c net.Conn) *Conn {
	return &Conn{Conn: c, Late: make(chan struct{}), Closed: make(chan struct{}),
		fire: make(chan struct{}), landed: make(chan struct{})}
}

// Read lets a held watch land first when the connection was written to
// since.
func (c *Conn) Read(p []byte) (int, error) {
	if c.wrote.Load() {
		c.fireOnce.Do(func() { close(c.fire) })
		<-c.landed
	}
	n, err := c.Conn.Read(p)
	if c.AfterRead != nil {
		c.AfterRead(p[:n])
	}
	return n, err
}

// Write notes a write made after the watch was held.
func (c *Conn) Write(p []byte) (int, error) {
	select {
	case <-c.Late:
		c.wrote.Store(true)
	default:
	}
	return c.Conn.Write(p)
}

// SetDeadline holds a deadline of Past until the next exchange's read
// (or Close).
func (c *Conn) SetDeadline(t time.Time) error {
	if t.Equal(Past) {
		close(c.Late)
		select {
		case <-c.fire:
		case <-c.Closed:
			return nil
		}
		err := c.Conn.SetDeadline(t)
		close(c.landed)
		return err
	}
	return c.Conn.SetDeadline(t)
}

// Close closes the connection and lets a held watch go.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { close(c.Closed) })
	return c.Conn.Close()
}
