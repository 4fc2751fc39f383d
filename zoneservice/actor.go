package zoneservice

import "context"

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
