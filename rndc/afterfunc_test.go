package rndc

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/latewatch"
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
	// The watch's deadline lands in the middle of the next command.
	conn := latewatch.New(raw)
	conn.AfterRead = cancelAtReply(cancel)
	c := &Client{Addr: f.addr(), Key: key, Timeout: 2 * time.Second}
	// As if a first command had made it: the fake issues nonce 12345.
	c.idle.Put(&ctlConn{Conn: conn, nonce: 12345}, DefaultMaxIdle)

	_, err = c.Command(ctx, "status")
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the context's error, got %v", err)
		}
		select {
		case <-conn.Closed:
		default:
			t.Fatal("the command failed but its connection was not closed")
		}
		if _, err := c.Command(context.Background(), "status"); err != nil {
			t.Fatalf("the next command (on a new connection): %v", err)
		}
		return
	}
	select {
	case <-conn.Late:
	case <-time.After(2 * time.Second):
		t.Fatal("the context's watch did not run: the test shows nothing")
	}
	if _, err := c.Command(context.Background(), "status"); err != nil {
		t.Fatalf("the cancelled command succeeded and went back to the pool, where the next command failed: %v", err)
	}
	t.Fatal("the cancelled command succeeded and its connection went back to the pool with a deadline in the past on its way")
}

// cancelAtReply cancels the context once a whole reply (a length-prefixed
// message) has been read on the connection, once.
func cancelAtReply(cancel func()) func(p []byte) {
	got := []byte{} // nil once the reply was whole
	return func(p []byte) {
		if got == nil {
			return
		}
		got = append(got, p...)
		if len(got) >= 4 && len(got) == 4+int(binary.BigEndian.Uint32(got)) {
			got = nil
			cancel()
		}
	}
}
