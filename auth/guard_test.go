package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

func guardReq(ip, token string) *http.Request {
	r := httptest.NewRequest("GET", "/api/v1/zones", nil)
	r.RemoteAddr = ip + ":1234"
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// TestGuardRateLimits: an identity gets its burst, then 429 with a
// Retry-After; another identity is unaffected. Failed authentications
// from one address lock that address out, even with a good token, and
// not another address. Recovery is shown without waiting: a bucket of a
// fast limit refills.
func TestGuardRateLimits(t *testing.T) {
	a, ah, _ := NewToken()
	b, bh, _ := NewToken()
	s := &Static{Tokens: []StaticToken{{Name: "a", Hash: ah}, {Name: "b", Hash: bh}}}
	provisionStatic(t, s)
	g := &Guard{Mode: s, ModeName: "static", Log: zap.NewNop(),
		PerIdentity: &RateLimit{Requests: 3, Interval: caddy.Duration(time.Hour)},
		FailedAuth:  &RateLimit{Requests: 2, Interval: caddy.Duration(time.Hour)}}
	// Unique subjects per run: buckets are process-wide.
	for i := 0; i < 3; i++ {
		if _, rej := g.Check(guardReq("192.0.2.1", a)); rej != nil {
			t.Fatalf("request %d: %+v", i, rej)
		}
	}
	_, rej := g.Check(guardReq("192.0.2.1", a))
	if rej == nil || rej.Status != 429 || rej.RetryAfter < 1 {
		t.Fatalf("past the burst: %+v", rej)
	}
	if _, rej := g.Check(guardReq("192.0.2.1", b)); rej != nil {
		t.Fatalf("other identity: %+v", rej)
	}
	for i := 0; i < 2; i++ {
		if _, rej := g.Check(guardReq("192.0.2.9", "wrong")); rej == nil || rej.Status != 401 {
			t.Fatalf("bad token %d: %+v", i, rej)
		}
	}
	if _, rej := g.Check(guardReq("192.0.2.9", b)); rej == nil || rej.Status != 429 || rej.Reason != "failed_auth_limit" {
		t.Fatalf("locked-out address: %+v", rej)
	}
	if _, rej := g.Check(guardReq("192.0.2.10", b)); rej != nil {
		t.Fatalf("other address: %+v", rej)
	}
	// Recovery, on a fake clock: after Retry-After the identity is
	// served again, and the address after its failures refill.
	now := time.Now()
	clock := NewLimits()
	clock.buckets.now = func() time.Time { return now }
	slow := &Guard{Mode: s, ModeName: "static", Log: zap.NewNop(), PerIdentity: &RateLimit{Requests: 1, Interval: caddy.Duration(time.Minute)},
		FailedAuth: &RateLimit{Requests: 1, Interval: caddy.Duration(time.Minute)}, Limits: clock}
	if _, rej := slow.Check(guardReq("192.0.2.30", a)); rej != nil {
		t.Fatal(rej)
	}
	_, rej = slow.Check(guardReq("192.0.2.30", a))
	if rej == nil || rej.Status != 429 || rej.RetryAfter != 60 {
		t.Fatalf("second request at once: %+v", rej)
	}
	now = now.Add(59 * time.Second)
	if _, rej := slow.Check(guardReq("192.0.2.30", a)); rej == nil || rej.RetryAfter != 1 {
		t.Fatalf("a second early: %+v", rej)
	}
	now = now.Add(time.Second)
	if _, rej := slow.Check(guardReq("192.0.2.30", a)); rej != nil {
		t.Fatalf("after Retry-After: %+v", rej)
	}
	_, _ = slow.Check(guardReq("192.0.2.31", "wrong"))
	if _, rej := slow.Check(guardReq("192.0.2.31", b)); rej == nil || rej.Reason != "failed_auth_limit" {
		t.Fatalf("address after a failure: %+v", rej)
	}
	now = now.Add(time.Minute)
	if _, rej := slow.Check(guardReq("192.0.2.31", b)); rej != nil {
		t.Fatalf("address after its bucket refilled: %+v", rej)
	}
}

type failingMode struct{}

func (failingMode) Authenticate(context.Context, string) (*Identity, error) {
	return nil, Unavailable("api_unreachable", "token review API unreachable")
}

func TestGuardUnavailableAndDisabled(t *testing.T) {
	g := &Guard{Mode: failingMode{}, Log: zap.NewNop(), FailedAuth: &RateLimit{Requests: 1, Interval: caddy.Duration(time.Hour)}}
	for i := 0; i < 3; i++ { // a 503 is not a failed authentication
		if _, rej := g.Check(guardReq("192.0.2.20", "t")); rej == nil || rej.Status != 503 {
			t.Fatalf("%+v", rej)
		}
	}
	d := &Guard{Disabled: true, PerIdentity: &RateLimit{Requests: 1, Interval: caddy.Duration(time.Hour)}}
	if id, rej := d.Check(guardReq("192.0.2.21", "")); rej != nil || id.ID != "anonymous" {
		t.Fatalf("%+v %+v", id, rej)
	}
	if _, rej := d.Check(guardReq("192.0.2.21", "")); rej == nil || rej.Status != 429 {
		t.Fatalf("disabled auth, second request of one address: %+v", rej)
	}
	if _, rej := d.Check(guardReq("192.0.2.22", "")); rej != nil {
		t.Fatalf("disabled auth, another address: %+v", rej)
	}
}

func TestExposed(t *testing.T) {
	got := Exposed([]string{":8080", "127.0.0.1:80", "tcp/[::1]:443", "unix//run/x.sock", "localhost:1", "0.0.0.0:9", "192.0.2.1:80"})
	want := []string{":8080", "0.0.0.0:9", "192.0.2.1:80"}
	if len(got) != len(want) {
		t.Fatalf("Exposed = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Exposed = %q, want %q", got, want)
		}
	}
}
