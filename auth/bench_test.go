package auth

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// BenchmarkModes measures each mode's cost per request (Authenticate on
// a valid token; jwt with its key cached) and prints it against basic,
// the baseline, measured in the same run.
func BenchmarkModes(b *testing.B) {
	ctx := context.Background()
	tok, hash, _ := NewToken()
	st := &Static{}
	for i := 0; i < 20; i++ { // twenty tokens, the presented one last
		_, h, _ := NewToken()
		st.Tokens = append(st.Tokens, StaticToken{Name: fmt.Sprintf("t%d", i), Hash: h})
	}
	st.Tokens = append(st.Tokens, StaticToken{Name: "me", Hash: hash, Scope: Scope{Actions: []string{"records"}}})
	provisionStatic(&testing.T{}, st)

	ec, rs := newECKey(b, "e1"), newRSAKey(b, "r1")
	file := filepath.Join(b.TempDir(), "jwks.json")
	if err := os.WriteFile(file, jwks(ec, rs), 0o600); err != nil {
		b.Fatal(err)
	}
	j := &JWT{Issuer: testIssuer, JWKSFile: file, Audiences: []string{"zoneapi"}, Algorithms: []string{"ES256", "RS256"}}
	provisionJWT(b, j)
	ecTok := sign(b, ec, claims("a", map[string]any{"zoneapi_scope": "actions=records zones=example.com"}))
	rsTok := sign(b, rs, claims("a", map[string]any{"zoneapi_scope": "actions=records zones=example.com"}))

	modes := []struct {
		name  string
		mode  Authenticator
		token string
	}{
		{"basic", Basic{}, tok},
		{"static (21 tokens)", st, tok},
		{"jwt ES256 (verified once)", j, ecTok},
		{"jwt RS256 (verified once)", j, rsTok},
		{"jwt ES256 signature check", uncached{j}, ecTok},
		{"jwt RS256 signature check", uncached{j}, rsTok},
	}
	var base float64
	for _, m := range modes {
		if _, err := m.mode.Authenticate(ctx, m.token); err != nil {
			b.Fatalf("%s: %v", m.name, err)
		}
		var ns float64
		b.Run(m.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := m.mode.Authenticate(ctx, m.token); err != nil {
					b.Fatal(err)
				}
			}
			ns = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		if base == 0 {
			base = ns
		}
		fmt.Printf("auth mode %-28s %10.0f ns/op  %8.1fx basic\n", m.name, ns, ns/base)
	}
}

// uncached runs the jwt mode with its cache of verified tokens emptied
// before every request: the cost of a token seen for the first time.
type uncached struct{ j *JWT }

func (u uncached) Authenticate(ctx context.Context, token string) (*Identity, error) {
	u.j.cache.mu.Lock()
	clear(u.j.cache.m)
	u.j.cache.mu.Unlock()
	return u.j.Authenticate(ctx, token)
}

// BenchmarkGuardCheck measures the whole per-request path of the auth
// package for a static token: Guard.Check (the client address's
// failed-auth bucket, the bearer header, the mode, the identity's rate
// limit) and the scope checks of a record change (action, zone, record
// name and type). It prints the cost next to basic's in the same run.
func BenchmarkGuardCheck(b *testing.B) {
	tok, hash, _ := NewToken()
	st := &Static{}
	for i := 0; i < 20; i++ {
		_, h, _ := NewToken()
		st.Tokens = append(st.Tokens, StaticToken{Name: fmt.Sprintf("t%d", i), Hash: h})
	}
	st.Tokens = append(st.Tokens, StaticToken{Name: "me", Hash: hash,
		Scope: Scope{Actions: []string{"records"}, Zones: []string{"example.com"}, Names: []string{"_acme-challenge.*"}, Types: []string{"TXT"}}})
	provisionStatic(&testing.T{}, st)
	limits := func() (*RateLimit, *RateLimit) {
		return &RateLimit{Requests: 1 << 30, Interval: caddy.Duration(time.Second)}, &RateLimit{Requests: 1 << 30, Interval: caddy.Duration(time.Second)}
	}
	var base float64
	for _, m := range []struct {
		name string
		mode Authenticator
	}{{"basic", Basic{}}, {"static (21 tokens, scoped)", st}} {
		per, failed := limits()
		g := &Guard{Mode: m.mode, ModeName: m.name, Log: zap.NewNop(), PerIdentity: per, FailedAuth: failed}
		r := httptest.NewRequest("POST", "/api/v1/zones/example.com/records", nil)
		r.RemoteAddr = "192.0.2.1:1234"
		r.Header.Set("Authorization", "Bearer "+tok)
		var ns float64
		b.Run(m.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				id, rej := g.Check(r)
				if rej != nil {
					b.Fatal(rej.Message)
				}
				if id.Grant.CheckAction(id.ID, ActionRecords, "example.com") != nil ||
					id.Grant.CheckRecord(id.ID, "", "_acme-challenge.www.example.com.", "TXT") != nil {
					b.Fatal("refused")
				}
			}
			ns = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		if base == 0 {
			base = ns
		}
		fmt.Printf("guard %-28s %10.0f ns/op  %8.1fx basic\n", m.name, ns, ns/base)
	}
}
