package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// TestJWKSFetchedAtMostOncePerInterval: 20 tokens with random unknown
// kids, sent without a valid token in between, cost one key set fetch,
// not 20, and each is refused as a failed authentication (401, counted
// by the failed-auth limit of the address).
func TestJWKSFetchedAtMostOncePerInterval(t *testing.T) {
	k := newECKey(t, "known")
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jwks(k))
	}))
	defer srv.Close()
	j := &JWT{Issuer: testIssuer, JWKSURL: srv.URL, Audiences: []string{"zoneapi"}}
	provisionJWT(t, j)
	if _, err := j.Authenticate(context.Background(), sign(t, k, claims("a", nil))); err != nil {
		t.Fatal(err)
	}
	g := &Guard{Mode: j, ModeName: "jwt", Log: zap.NewNop(), FailedAuth: &RateLimit{Requests: 1000, Interval: caddy.Duration(time.Hour)}}
	for i := 0; i < 20; i++ {
		stranger := newECKey(t, fmt.Sprintf("random-%d", i))
		_, rej := g.Check(guardReq("192.0.2.66", sign(t, stranger, claims("x", nil))))
		if rej == nil || rej.Status != 401 {
			t.Fatalf("token %d with an unknown kid: %+v, want 401", i, rej)
		}
	}
	if n := fetches.Load(); n > 2 {
		t.Errorf("%d key set fetches for 1 good and 20 unknown-kid tokens, want at most 2", n)
	}
	if d := g.limits().blocked(g.FailedAuth, "failed_auth", g.LimitName, "192.0.2.66"); d != 0 {
		t.Fatalf("not blocked yet: %v", d)
	}
	if tokens := g.limits().bucket(g.FailedAuth, "failed_auth", g.LimitName, "192.0.2.66").TokensAt(time.Now()); tokens > 1000-20+1 {
		t.Errorf("the refusals were not counted as failed authentications: %v tokens left of 1000", tokens)
	}
}
