package connpool

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// Alive reports whether an idle connection can still carry a request: the
// peer has not closed or reset it, and it holds no unread bytes (an idle
// connection of a request-reply protocol has none; bytes there would be
// taken for the next reply). It reads nothing from a live connection.
//
// Callers check a pooled connection before writing on it, so that a
// connection named closed while it was idle (after a restart, or its idle
// timeout) is replaced before anything is sent on it, rather than after a
// request was written that named may have executed without answering.
// named can still close a connection between the check and the write:
// a failure after the write is then an unknown outcome, never a resend.
func Alive(c net.Conn) bool {
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			if alive, ok := peek(raw); ok {
				return alive
			}
		}
	}
	// No socket to peek at: a read that gives up at once. It consumes
	// what it reads, but a connection with unread bytes is dropped anyway.
	_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
	var b [1]byte
	_, err := c.Read(b[:])
	_ = c.SetReadDeadline(time.Time{})
	return errors.Is(err, os.ErrDeadlineExceeded)
}
