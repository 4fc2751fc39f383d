package rndc

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// TestPooledCommandCancelledAtItsEnd: a command on a pooled connection
// whose context ends once the answer is read, before the command stops
// watching it, fails with the context's error and its connection is
// closed rather than pooled: the watch's deadline in the past lands on
// the connection later (context.AfterFunc runs it in a goroutine of its
// own), possibly while the next command on it waits for its answer,
// which is then lost (outcome unknown). Failed before: the command
// succeeded, its connection went back to the pool, and the next command
// on it timed out once the deadline landed.
func TestPooledCommandCancelledAtItsEnd(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newFake(t, key, "ok")
	raw, err := net.Dial("tcp", f.addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn := newLateWatchConn(raw, cancel)
	c := &Client{Addr: f.addr(), Key: key, Timeout: 2 * time.Second}
	// As if a first command had made it: the fake issues nonce 12345.
	c.idle.Put(&ctlConn{Conn: conn, nonce: 12345}, DefaultMaxIdle)

	_, err = c.Command(ctx, "status")
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the context's error, got %v", err)
		}
		select {
		case <-conn.closed:
		default:
			t.Fatal("the command failed but its connection was not closed")
		}
		if _, err := c.Command(context.Background(), "status"); err != nil {
			t.Fatalf("the next command (on a new connection): %v", err)
		}
		return
	}
	select {
	case <-conn.late:
	case <-time.After(2 * time.Second):
		t.Fatal("the context's watch did not run: the test shows nothing")
	}
	if _, err := c.Command(context.Background(), "status"); err != nil {
		t.Fatalf("the cancelled command succeeded and went back to the pool, where the next command failed: %v", err)
	}
	t.Fatal("the cancelled command succeeded and its connection went back to the pool with a deadline in the past on its way")
}

// lateWatchConn cancels the context once a whole reply has been read,
// and holds the watch's deadline in the past (time.Unix(1, 0)) until the
// connection, written to meanwhile, is read again (or closed): the watch
// then lands in the middle of the next exchange, as a late goroutine
// would.
type lateWatchConn struct {
	net.Conn
	cancel func()

	mu        sync.Mutex
	got       []byte // the reply's bytes until it is whole; nil after
	wrote     bool   // written to since late
	fireOnce  sync.Once
	closeOnce sync.Once

	late   chan struct{} // closed when the watch's deadline is asked for
	fire   chan struct{} // closed when it is to land
	landed chan struct{} // closed once it has
	closed chan struct{}
}

func newLateWatchConn(c net.Conn, cancel func()) *lateWatchConn {
	return &lateWatchConn{Conn: c, cancel: cancel, got: []byte{},
		late: make(chan struct{}), fire: make(chan struct{}), landed: make(chan struct{}), closed: make(chan struct{})}
}

func (c *lateWatchConn) isLate() bool {
	select {
	case <-c.late:
		return true
	default:
		return false
	}
}

func (c *lateWatchConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	wrote := c.wrote
	c.mu.Unlock()
	if wrote {
		c.fireOnce.Do(func() { close(c.fire) })
		<-c.landed
	}
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.got != nil {
		c.got = append(c.got, p[:n]...)
		if len(c.got) >= 4 && len(c.got) == 4+int(binary.BigEndian.Uint32(c.got)) {
			c.got = nil
			c.cancel()
		}
	}
	c.mu.Unlock()
	return n, err
}

func (c *lateWatchConn) Write(p []byte) (int, error) {
	if c.isLate() {
		c.mu.Lock()
		c.wrote = true
		c.mu.Unlock()
	}
	return c.Conn.Write(p)
}

func (c *lateWatchConn) SetDeadline(t time.Time) error {
	if t.Equal(time.Unix(1, 0)) {
		close(c.late)
		select {
		case <-c.fire:
		case <-c.closed:
			return nil
		}
		err := c.Conn.SetDeadline(t)
		close(c.landed)
		return err
	}
	return c.Conn.SetDeadline(t)
}

func (c *lateWatchConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
