//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package connpool

import "syscall"

// peek cannot look at the socket on this system.
func peek(syscall.RawConn) (alive, ok bool) { return false, false }
