package dnsupdate

import (
	"context"
	"fmt"
	"net"
	"time"
)

type idleConn struct {
	c     net.Conn
	since time.Time
}

// get returns a pooled connection (reused true) or a new one. At most
// maxOpen connections are open; beyond that, get waits for one to be
// returned.
func (c *Client) get(ctx context.Context) (net.Conn, bool, error) {
	var dctx context.Context
	for {
		now := time.Now()
		c.mu.Lock()
		for len(c.idle) > 0 {
			ic := c.idle[len(c.idle)-1]
			c.idle = c.idle[:len(c.idle)-1]
			if now.Sub(ic.since) < maxIdleAge {
				c.mu.Unlock()
				return ic.c, true, nil
			}
			_ = ic.c.Close()
			<-c.open
		}
		freed := c.freed
		c.mu.Unlock()
		if dctx == nil {
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		select {
		case c.open <- struct{}{}:
			conn, err := c.dialer.DialContext(dctx, "tcp", c.server)
			if err != nil {
				<-c.open
				return nil, false, fmt.Errorf("connecting to named at %s: %w", c.server, err)
			}
			return conn, false, nil
		case <-freed: // a connection came back: take it
		case <-dctx.Done():
			return nil, false, fmt.Errorf("waiting for a connection to named at %s: %w", c.server, dctx.Err())
		}
	}
}

// put returns a healthy connection to the pool and wakes the waiters.
// Every open connection holds a token of c.open, so the idle list never
// exceeds maxOpen.
func (c *Client) put(conn net.Conn) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.discard(conn)
		return
	}
	c.idle = append(c.idle, idleConn{conn, time.Now()})
	close(c.freed)
	c.freed = make(chan struct{})
	c.mu.Unlock()
}

// discard closes a connection that failed.
func (c *Client) discard(conn net.Conn) {
	_ = conn.Close()
	<-c.open
}

// Close closes the idle connections and keeps none from now on: exchanges
// still running finish, then close their connections. The Client stays
// usable, with a new connection per exchange.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, ic := range idle {
		c.discard(ic.c)
	}
}
