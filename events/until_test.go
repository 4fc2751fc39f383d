package events

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// TestStreamUntil: the event stream ends before the server's write
// timeout and when the identity's credential expires, whichever comes
// first. (Before: only the write timeout; without one, a stream opened
// with a JWT went on after the token expired.)
func TestStreamUntil(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := func(writeTimeout time.Duration, expires time.Time) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/events", nil)
		ctx := r.Context()
		if writeTimeout > 0 {
			ctx = context.WithValue(ctx, caddyhttp.ServerCtxKey, &caddyhttp.Server{WriteTimeout: caddy.Duration(writeTimeout)})
		}
		return auth.Admitted(r.WithContext(ctx), &auth.Identity{ID: "jwt:x", Mode: "jwt", Expires: expires})
	}
	for _, c := range []struct {
		name         string
		writeTimeout time.Duration
		expires      time.Time
		want         time.Time
	}{
		{"neither", 0, time.Time{}, time.Time{}},
		{"write timeout", 10 * time.Second, time.Time{}, now.Add(9 * time.Second)},
		{"token expiry", 0, now.Add(time.Hour), now.Add(time.Hour)},
		{"token expires first", 10 * time.Minute, now.Add(time.Minute), now.Add(time.Minute)},
		{"write timeout first", 10 * time.Second, now.Add(time.Hour), now.Add(9 * time.Second)},
	} {
		if got := StreamUntil(req(c.writeTimeout, c.expires), now); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
