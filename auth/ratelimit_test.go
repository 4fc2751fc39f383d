package auth

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// TestFloodOfAddressesKeepsLockouts: an address locked out for failed
// authentications, and an identity past its rate limit, stay limited
// while twice the table's bound of new addresses each fail once; a new
// address is never refused for want of room.
func TestFloodOfAddressesKeepsLockouts(t *testing.T) {
	tok, hash, _ := NewToken()
	s := &Static{Tokens: []StaticToken{{Name: "flood-victim", Hash: hash}}}
	provisionStatic(t, s)
	g := &Guard{Mode: s, ModeName: "static", Log: zap.NewNop(),
		PerIdentity: &RateLimit{Requests: 2, Interval: caddy.Duration(time.Hour)},
		FailedAuth:  &RateLimit{Requests: 3, Interval: caddy.Duration(time.Hour)}, Limits: NewLimits()}
	const locked = "198.51.100.77"
	for i := 0; i < 3; i++ {
		g.Check(guardReq(locked, "wrong"))
	}
	if _, rej := g.Check(guardReq(locked, tok)); rej == nil || rej.Status != 429 {
		t.Fatalf("not locked out: %+v", rej)
	}
	for i := 0; i < 2; i++ {
		g.Check(guardReq("198.51.100.1", tok))
	}
	if _, rej := g.Check(guardReq("198.51.100.1", tok)); rej == nil || rej.Status != 429 {
		t.Fatalf("identity not limited: %+v", rej)
	}
	// A smaller bound than maxLimiters keeps the test fast under -race;
	// the rule is the same. (The old code's bound, 10,000, was flooded
	// with 20,000 addresses when this test was shown to fail on it.)
	buckets := g.Limits.buckets
	buckets.mu.Lock()
	buckets.max = len(buckets.m) + 2000
	buckets.mu.Unlock()
	flood := 2 * buckets.max
	for i := 0; i < flood; i++ {
		ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		if _, rej := g.Check(guardReq(ip, "wrong")); rej == nil || rej.Status != 401 {
			t.Fatalf("flood address %d: %+v, want 401", i, rej)
		}
	}
	if _, rej := g.Check(guardReq(locked, tok)); rej == nil || rej.Status != 429 {
		t.Errorf("after a flood of %d addresses the lock-out is lifted: %+v", flood, rej)
	}
	if _, rej := g.Check(guardReq("198.51.100.2", tok)); rej == nil || rej.Status != 429 {
		t.Errorf("after a flood of %d addresses the identity's limit is lifted: %+v", flood, rej)
	}
	// A new address still authenticates (its failures are counted too).
	if _, rej := g.Check(guardReq("203.0.113.9", "wrong")); rej == nil || rej.Status != 401 {
		t.Errorf("a new address: %+v, want 401", rej)
	}
}

// TestFailedAuthCountsIPv6PerSlash64: failed authentications from
// addresses of one IPv6 /64 share one bucket, so moving within the /64
// does not escape a lock-out; another /64 is not affected.
func TestFailedAuthCountsIPv6PerSlash64(t *testing.T) {
	g := &Guard{Mode: Basic{}, ModeName: "basic", Log: zap.NewNop(),
		FailedAuth: &RateLimit{Requests: 2, Interval: caddy.Duration(time.Hour)}}
	req := func(ip, header string) *Rejection {
		r := httptest.NewRequest("GET", "/api/v1/zones", nil)
		r.RemoteAddr = "[" + ip + "]:1234"
		r.Header.Set("Authorization", header)
		_, rej := g.Check(r)
		return rej
	}
	for i := 1; i <= 2; i++ {
		if rej := req(fmt.Sprintf("2001:db8:7:7::%x", i), "Basic x"); rej == nil || rej.Status != 401 {
			t.Fatalf("failure %d: %+v", i, rej)
		}
	}
	if rej := req("2001:db8:7:7:ffff::1", "Bearer good"); rej == nil || rej.Status != 429 {
		t.Errorf("another address of the /64: %+v, want 429", rej)
	}
	if rej := req("2001:db8:7:8::1", "Bearer good"); rej != nil {
		t.Errorf("another /64: %+v, want admitted", rej)
	}
}
