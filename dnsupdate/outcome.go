package dnsupdate

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// OutcomeUnknown reports whether a failed exchange may have been applied
// by named: it timed out or lost its connection after the message may
// have been sent, rather than failing to connect. A change that failed so
// must not be taken for one that changed nothing.
func OutcomeUnknown(err error) bool {
	if err == nil || errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout() ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
