package dnsupdate

import (
	"context"
	"fmt"
	"net"

	"github.com/zoneapi/caddy-zoneapi/internal/connpool"
)

// get returns a pooled connection (reused true) or a new one. At most
// maxOpen connections are open; beyond that, get waits for one to be
// returned.
func (c *Client) get(ctx context.Context) (net.Conn, bool, error) {
	var dctx context.Context
	for {
		// freed is read before the pool is: a connection put back after
		// the pool was found empty closes this very channel.
		c.mu.Lock()
		freed := c.freed
		c.mu.Unlock()
		if conn, ok := c.idle.Get(maxIdleAge); ok {
			if connpool.Alive(conn) {
				return conn, true, nil
			}
			// Closed by named while idle (a restart, its idle
			// timeout): nothing was sent on it. Take another.
			c.discard(conn)
			continue
		}
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
// Every open connection holds a token of c.open, so the pool never holds
// more than maxOpen; after Close, the pool discards it.
func (c *Client) put(conn net.Conn) {
	if !c.idle.Put(conn, maxOpen) {
		return
	}
	c.mu.Lock()
	close(c.freed)
	c.freed = make(chan struct{})
	c.mu.Unlock()
}

// discard closes a connection that failed or that the pool drops, and
// gives its token back.
func (c *Client) discard(conn net.Conn) {
	_ = conn.Close()
	<-c.open
}

// Close closes the idle connections and keeps none from now on: exchanges
// still running finish, then close their connections. The Client stays
// usable, with a new connection per exchange.
func (c *Client) Close() { c.idle.Close() }
