package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	jose "github.com/go-jose/go-jose/v4"
)

const testIssuer = "https://issuer.zoneapi.test"

// jwtKey is a signing key with its kid.
type jwtKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv any
	pub  any
}

func newECKey(t testing.TB, kid string) jwtKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return jwtKey{kid: kid, alg: jose.ES256, priv: k, pub: &k.PublicKey}
}

var (
	rsaOnce sync.Once
	rsaKey  *rsa.PrivateKey
)

func newRSAKey(t testing.TB, kid string) jwtKey {
	t.Helper()
	rsaOnce.Do(func() {
		var err error
		if rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return jwtKey{kid: kid, alg: jose.RS256, priv: rsaKey, pub: &rsaKey.PublicKey}
}

func jwks(keys ...jwtKey) []byte {
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.pub, KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
	}
	b, _ := json.Marshal(set)
	return b
}

func sign(t testing.TB, k jwtKey, claims map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func claims(sub string, extra map[string]any) map[string]any {
	c := map[string]any{"iss": testIssuer, "sub": sub, "aud": []string{"zoneapi"}, "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func provisionJWT(t testing.TB, j *JWT) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := j.Provision(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestJWT: a valid token; expired (past the leeway), wrong audience,
// wrong issuer, alg none, HS256 signed with the public key, a key the
// set does not hold; scopes from the claim, by subject, by default.
func TestJWT(t *testing.T) {
	ec := newECKey(t, "k1")
	rs := newRSAKey(t, "r1")
	dir := t.TempDir()
	file := filepath.Join(dir, "jwks.json")
	if err := os.WriteFile(file, jwks(ec, rs), 0o600); err != nil {
		t.Fatal(err)
	}
	j := &JWT{Issuer: testIssuer, JWKSFile: file, Audiences: []string{"zoneapi", "other"}, Algorithms: []string{"ES256", "RS256"},
		Leeway:       caddy.Duration(time.Minute),
		Subjects:     map[string]Scope{"system:serviceaccount:cert-manager:cm": {Actions: []string{"records"}, Types: []string{"TXT"}}},
		DefaultScope: &Scope{Actions: []string{"read"}}}
	provisionJWT(t, j)
	ctx := context.Background()

	id, err := j.Authenticate(ctx, sign(t, ec, claims("alice", map[string]any{"zoneapi_scope": "actions=records zones=example.com"})))
	if err != nil || id.ID != "jwt:alice" || !id.Grant.AllowsAction(ActionRecords) || id.Grant.AllowsZone("other.com") {
		t.Fatalf("valid ES256 with a scope claim: %+v, %v", id, err)
	}
	id, err = j.Authenticate(ctx, sign(t, rs, claims("system:serviceaccount:cert-manager:cm", nil)))
	if err != nil || id.Grant.AllowsAction(ActionZones) || !id.Grant.AllowsRecord("_acme-challenge.x.", "TXT") {
		t.Fatalf("valid RS256, scope by subject: %+v, %v", id, err)
	}
	id, err = j.Authenticate(ctx, sign(t, ec, claims("bob", map[string]any{"zoneapi_scope": map[string]any{"zones": []string{"*.customer.test"}}})))
	if err != nil || !id.Grant.AllowsZone("a.customer.test") || id.Grant.AllowsZone("b.test") {
		t.Fatalf("scope claim as an object: %+v, %v", id, err)
	}
	id, err = j.Authenticate(ctx, sign(t, ec, claims("carol", nil)))
	if err != nil || !id.Grant.AllowsAction(ActionRead) || id.Grant.AllowsAction(ActionRecords) {
		t.Fatalf("default scope: %+v, %v", id, err)
	}
	// Within the leeway is still valid.
	if _, err := j.Authenticate(ctx, sign(t, ec, claims("dave", map[string]any{"exp": time.Now().Add(-30 * time.Second).Unix()}))); err != nil {
		t.Fatalf("expired within the leeway: %v", err)
	}

	other := newECKey(t, "k1") // same kid, a key the set does not hold
	pubPEM, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	hmacKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubPEM})
	hs := jwtKey{kid: "r1", alg: jose.HS256, priv: hmacKey}
	none := func(c map[string]any) string {
		h, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
		p, _ := json.Marshal(c)
		return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p) + "."
	}
	for _, tc := range []struct {
		name, token, reason string
	}{
		{"expired", sign(t, ec, claims("e", map[string]any{"exp": time.Now().Add(-2 * time.Minute).Unix()})), "expired_token"},
		{"no expiry", sign(t, ec, claims("e", map[string]any{"exp": nil})), "invalid_jwt"},
		{"not yet valid", sign(t, ec, claims("e", map[string]any{"nbf": time.Now().Add(5 * time.Minute).Unix()})), "invalid_jwt"},
		{"wrong audience", sign(t, ec, claims("e", map[string]any{"aud": "someone-else"})), "wrong_audience"},
		{"wrong issuer", sign(t, ec, claims("e", map[string]any{"iss": "https://evil.test"})), "wrong_issuer"},
		{"alg none", none(claims("e", nil)), "invalid_jwt"},
		{"HS256 with the public key", sign(t, hs, claims("e", nil)), "invalid_jwt"},
		{"unknown key", sign(t, other, claims("e", nil)), "invalid_jwt"},
		{"bad scope claim", sign(t, ec, claims("e", map[string]any{"zoneapi_scope": "actions=write"})), "invalid_jwt"},
		{"garbage", "abc.def.ghi", "invalid_jwt"},
	} {
		_, err := j.Authenticate(ctx, tc.token)
		var ae *Error
		if err == nil || !asError(err, &ae) || ae.Status != 401 || ae.Reason != tc.reason {
			t.Errorf("%s: %v, want 401 %s", tc.name, err, tc.reason)
		}
	}
	// Without a default scope, a token with no scope may do nothing.
	strict := &JWT{Issuer: testIssuer, JWKSFile: file, Audiences: []string{"zoneapi"}}
	provisionJWT(t, strict)
	id, err = strict.Authenticate(ctx, sign(t, rs, claims("x", nil)))
	if err != nil || id.Grant.AllowsAction(ActionRead) {
		t.Fatalf("no scope: %+v, %v", id, err)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}

// TestJWTRotation: with a key set URL, a token signed with a new key
// (unknown kid) makes the set be fetched again, once the miss interval
// (1m) has passed since the last fetch, and is then accepted; tokens of a
// cached key cost no fetch until the refresh interval (5m); an
// unreachable key set is a 503 for a key not known, while known keys go
// on working.
func TestJWTRotation(t *testing.T) {
	k1, k2 := newECKey(t, "2026-01"), newECKey(t, "2026-02")
	var current atomic.Pointer[[]byte]
	set := jwks(k1)
	current.Store(&set)
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*current.Load())
	}))
	defer srv.Close()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	advance := func(d time.Duration) { now.Add(int64(d)) }
	j := &JWT{Issuer: testIssuer, JWKSURL: srv.URL, Audiences: []string{"zoneapi"},
		now: func() time.Time { return time.Unix(0, now.Load()) }}
	provisionJWT(t, j)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := j.Authenticate(ctx, sign(t, k1, claims("a", nil))); err != nil {
			t.Fatal(err)
		}
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for three tokens of one key, want 1", n)
	}
	rotated := jwks(k1, k2)
	current.Store(&rotated)
	tok2 := sign(t, k2, claims("a", nil))
	// Within a minute of the last fetch, an unknown kid fetches nothing
	// and is refused.
	var ae *Error
	if _, err := j.Authenticate(ctx, tok2); !asError(err, &ae) || ae.Status != 401 {
		t.Fatalf("unknown kid within the miss interval: %v, want 401", err)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want still 1", n)
	}
	advance(time.Minute)
	if _, err := j.Authenticate(ctx, tok2); err != nil {
		t.Fatalf("token of the rotated-in key a minute later: %v", err)
	}
	if n := fetches.Load(); n != 2 {
		t.Errorf("%d fetches after the rotation, want 2", n)
	}
	// The regular refresh: five minutes on, a known kid fetches again.
	advance(5 * time.Minute)
	if _, err := j.Authenticate(ctx, sign(t, k1, claims("b", nil))); err != nil {
		t.Fatal(err)
	}
	if n := fetches.Load(); n != 3 {
		t.Errorf("%d fetches after the refresh interval, want 3", n)
	}
	srv.Close()
	k3 := newECKey(t, "2026-03")
	advance(time.Minute)
	if _, err := j.Authenticate(ctx, sign(t, k3, claims("a", nil))); !asError(err, &ae) || ae.Status != 503 {
		t.Fatalf("key set unreachable: %v, want 503", err)
	}
	// Known keys keep working while the set cannot be fetched.
	advance(5 * time.Minute)
	if _, err := j.Authenticate(ctx, sign(t, k2, claims("c", nil))); err != nil {
		t.Fatalf("known key with the set unreachable: %v", err)
	}
}

// TestJWTDiscovery: with only an issuer, the key set is found through
// the OpenID Connect discovery document.
func TestJWTDiscovery(t *testing.T) {
	k := newECKey(t, "d1")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "jwks_uri": srv.URL + "/keys", "id_token_signing_alg_values_supported": []string{"ES256"}})
		case "/keys":
			_, _ = w.Write(jwks(k))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	j := &JWT{Issuer: srv.URL, Audiences: []string{"zoneapi"}}
	provisionJWT(t, j)
	c := claims("disc", nil)
	c["iss"] = srv.URL
	if id, err := j.Authenticate(context.Background(), sign(t, k, c)); err != nil || id.ID != "jwt:disc" {
		t.Fatalf("%+v %v", id, err)
	}
}

func TestJWTConfig(t *testing.T) {
	for name, j := range map[string]*JWT{
		"no audience":  {Issuer: testIssuer, JWKSURL: "https://x"},
		"no issuer":    {JWKSURL: "https://x", Audiences: []string{"a"}},
		"HS256":        {Issuer: testIssuer, JWKSURL: "https://x", Audiences: []string{"a"}, Algorithms: []string{"HS256"}},
		"none":         {Issuer: testIssuer, JWKSURL: "https://x", Audiences: []string{"a"}, Algorithms: []string{"none"}},
		"url and file": {Issuer: testIssuer, JWKSURL: "https://x", JWKSFile: "/x", Audiences: []string{"a"}},
		"bad scope":    {Issuer: testIssuer, JWKSURL: "https://x", Audiences: []string{"a"}, DefaultScope: &Scope{Actions: []string{"all"}}},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		if err := j.Provision(ctx); err == nil {
			t.Errorf("%s: provisioned", name)
		}
		cancel()
	}
	var j JWT
	err := j.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jwt {
		issuer https://kubernetes.default.svc
		jwks_file /etc/zoneapi/jwks.json
		audiences zoneapi
		algorithms RS256 ES256
		leeway 1m
		subject system:serviceaccount:cert-manager:cm actions=records names=_acme-challenge.* types=TXT
		default_scope actions=read
	}`))
	if err != nil || j.Subjects["system:serviceaccount:cert-manager:cm"].String() != "actions=records names=_acme-challenge.* types=TXT" || j.Leeway != caddy.Duration(time.Minute) {
		t.Fatalf("%+v %v", j, err)
	}
	if err := new(JWT).UnmarshalCaddyfile(caddyfile.NewTestDispenser(`jwt { algorithms HS256 }`)); err == nil {
		t.Error("HS256 accepted")
	}
}

// TestJWTCAFile: a key set served over HTTPS by a private CA is fetched
// with ca_file; without it the certificate is refused (503).
func TestJWTCAFile(t *testing.T) {
	k := newECKey(t, "tls1")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(jwks(k))
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	tok := sign(t, k, claims("tls", nil))
	with := &JWT{Issuer: testIssuer, JWKSURL: srv.URL, CAFile: ca, Audiences: []string{"zoneapi"}}
	provisionJWT(t, with)
	if id, err := with.Authenticate(context.Background(), tok); err != nil || id.ID != "jwt:tls" {
		t.Fatalf("with ca_file: %+v %v", id, err)
	}
	without := &JWT{Issuer: testIssuer, JWKSURL: srv.URL, Audiences: []string{"zoneapi"}}
	provisionJWT(t, without)
	_, err := without.Authenticate(context.Background(), tok)
	var ae *Error
	if !asError(err, &ae) || ae.Status != 503 {
		t.Fatalf("without ca_file: %v, want 503", err)
	}
}

// TestJWTIdentityExpires: the identity of a JWT carries the token's
// expiry with the leeway, so that a long-lived request (the event stream)
// ends when the token does. (Before: no expiry on the identity, and a
// stream opened with a token an hour from expiry ran on after it.)
func TestJWTIdentityExpires(t *testing.T) {
	ec := newECKey(t, "k1")
	file := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(file, jwks(ec), 0o600); err != nil {
		t.Fatal(err)
	}
	j := &JWT{Issuer: testIssuer, JWKSFile: file, Audiences: []string{"zoneapi"}, Algorithms: []string{"ES256"}, Leeway: caddy.Duration(time.Minute)}
	provisionJWT(t, j)
	exp := time.Now().Add(10 * time.Minute).Truncate(time.Second)
	id, err := j.Authenticate(context.Background(), sign(t, ec, claims("erin", map[string]any{"exp": exp.Unix()})))
	if err != nil {
		t.Fatal(err)
	}
	if want := exp.Add(time.Minute); !id.Expires.Equal(want) {
		t.Errorf("Expires %v, want %v (exp + leeway)", id.Expires, want)
	}
}
