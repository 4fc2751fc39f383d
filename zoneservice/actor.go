package zoneservice

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Actor is who asked for an operation, as the change history records it
// (zonemodel.Actor): a front end puts it in the request's context
// (WithActor) before it calls the service.
type Actor = zonemodel.Actor

// WithActor returns ctx carrying a (zonemodel.WithActor).
func WithActor(ctx context.Context, a Actor) context.Context { return zonemodel.WithActor(ctx, a) }

// ActorOf returns the actor ctx carries, zero when none (zonemodel.ActorOf).
func ActorOf(ctx context.Context) Actor { return zonemodel.ActorOf(ctx) }

// MaxRequestIDLen is the longest request id a front end takes from a
// client's X-Request-Id (zonemodel's).
const MaxRequestIDLen = zonemodel.MaxRequestIDLen

// CheckRequestID returns why a client's request ids cannot be recorded,
// "" when they can (zonemodel.CheckRequestID).
func CheckRequestID(values []string) string { return zonemodel.CheckRequestID(values) }
