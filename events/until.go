package events

import (
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// StreamUntil is when the event stream of r ends cleanly (zero: not
// before the client goes or the server stops): before the server's write
// timeout would cut it, and when the identity's credential expires (a
// JWT's exp), so that an expired token does not go on reading changes;
// the client reconnects with Last-Event-ID and a valid credential. It is
// the API's StreamUntil in zone_api; moved from module/events.go.
func StreamUntil(r *http.Request, now time.Time) time.Time {
	var until time.Time
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.WriteTimeout > 0 {
		until = now.Add(time.Duration(srv.WriteTimeout) * 9 / 10)
	}
	if id := auth.StateOf(r).ID; id != nil && !id.Expires.IsZero() && (until.IsZero() || id.Expires.Before(until)) {
		until = id.Expires
	}
	return until
}
