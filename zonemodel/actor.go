package zonemodel

import (
	"context"
	"fmt"
)

// Actor is who asked for an operation, as the change history records it:
// a front end puts it in the request's context (WithActor) before it
// calls the service.
type Actor struct {
	// Identity is the authenticated identity as the audit log line
	// names it.
	Identity string
	// Frontend is the front end that asked: "rest", "powerdns",
	// "externaldns" or "caddydns".
	Frontend string
	// RequestID is the request's id as the front end logged it.
	RequestID string
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf returns the actor ctx carries (zero when none).
func ActorOf(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// MaxRequestIDLen is the longest request id a front end takes from a
// client's X-Request-Id.
const MaxRequestIDLen = 128

// CheckRequestID returns why a client's request ids (the values of its
// X-Request-Id headers) cannot be recorded, "" when they can: none, an
// empty one (as none: the front end makes one), or one value of at most
// MaxRequestIDLen bytes of printable ASCII (space to tilde). The
// id goes into the audit log line, the change history, the event stream
// and the webhooks' bodies, where a line break, an escape sequence or a
// right-to-left mark would forge or hide lines of a log read as text.
// The value itself is never repeated in the reason.
func CheckRequestID(values []string) string {
	switch {
	case len(values) == 0:
		return ""
	case len(values) > 1:
		return fmt.Sprintf("X-Request-Id is given %d times; send it once", len(values))
	}
	v := values[0]
	if len(v) > MaxRequestIDLen {
		return fmt.Sprintf("X-Request-Id is %d bytes long; at most %d are taken", len(v), MaxRequestIDLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return fmt.Sprintf("X-Request-Id has byte 0x%02x at offset %d; only printable ASCII (space to '~') is taken, no control characters or other encodings", c, i)
		}
	}
	return ""
}
