//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package connpool

import (
	"errors"
	"syscall"
)

// peek looks at the socket without reading from it or waiting (Go's
// sockets are non-blocking): EAGAIN means alive and empty; end of stream,
// an error or unread bytes mean not. ok is false when it cannot tell.
func peek(raw syscall.RawConn) (alive, ok bool) {
	var (
		err error
		b   [1]byte
	)
	if cerr := raw.Read(func(fd uintptr) bool {
		_, _, err = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		return true
	}); cerr != nil {
		return false, true
	}
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) {
		return true, true
	}
	if errors.Is(err, syscall.EINTR) {
		return false, false
	}
	return false, true // end of stream, unread bytes, or an error
}
