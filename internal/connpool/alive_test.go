package connpool

import (
	"net"
	"testing"
	"time"
)

// TestAlive: a live idle connection is alive and loses nothing; one the
// peer closed, or one holding unread bytes, is not.
func TestAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pair := func() (client, server net.Conn) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(); s.Close() })
		return c, s
	}
	// wait polls until Alive gives want: the peer's FIN or bytes cross
	// loopback at once, but not necessarily before the next instruction.
	wait := func(c net.Conn, want bool) bool {
		for i := 0; i < 100; i++ {
			if Alive(c) == want {
				return true
			}
			time.Sleep(10 * time.Millisecond)
		}
		return false
	}

	c, s := pair()
	if !Alive(c) {
		t.Error("a live idle connection is not alive")
	}
	if _, err := s.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if !wait(c, false) {
		t.Error("a connection with unread bytes is alive")
	}
	// A TCP connection is peeked at, not read: the byte is still there.
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b := make([]byte, 1); func() bool { n, err := c.Read(b); return n != 1 || err != nil || b[0] != 'x' }() {
		t.Error("the check consumed the unread byte of a TCP connection (it read instead of peeking)")
	}

	c, s = pair()
	s.Close()
	if !wait(c, false) {
		t.Error("a connection the peer closed is alive")
	}

	// Still alive after checks: the check read nothing.
	c, s = pair()
	for i := 0; i < 3; i++ {
		if !Alive(c) {
			t.Fatal("a live connection is not alive after a check")
		}
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	_ = s.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := s.Read(buf); err != nil || string(buf[:n]) != "ping" {
		t.Errorf("after the checks: read %q, %v", buf[:n], err)
	}
}
