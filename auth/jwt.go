package auth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
)

func init() {
	caddy.RegisterModule(JWT{})
}

// AsymmetricAlgorithms are the JWS algorithms the jwt mode may allow:
// signatures checked with a public key. HMAC (HS256…) is never allowed,
// since a JWKS holds public keys and an HMAC "signed" with a public key
// proves nothing; "none" is never allowed.
var AsymmetricAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// JWT authenticates signed JSON Web Tokens offline: the signature is
// checked against a JSON Web Key Set (from a URL, a file, or the
// issuer's OpenID Connect discovery document), then the issuer, the
// audience, the expiry and not-before times (with a leeway), and the
// algorithm against a fixed list. A URL key set is cached and fetched
// again at most once per JWKSRefresh, or, for a token whose key id (kid)
// the cached set lacks, at most once per JWKSMissRefresh, so key rotation
// needs no reload and tokens with made-up kids cannot make the identity
// provider be asked once per request. Kubernetes service-account tokens are such tokens: set
// the cluster's issuer and the audience the pods request. A verified
// token is remembered (by its SHA-256) until it expires, at most five
// minutes, so repeated requests cost one signature check.
//
// The identity is the subject claim (or IdentityClaim), prefixed "jwt:".
// Its scope comes from the ScopesClaim of the token (a string in the
// scope syntax, `actions=records zones=example.com`, or an object of the
// same fields) and the Subjects entry of its identity: when both exist,
// the stricter applies (their intersection: a request must be allowed by
// both); when only one exists, that one; when neither, DefaultScope, or
// else nothing at all (every request then gets 403). A claim that is
// present but grants nothing (null, "", " ", {}) gives no access; a claim
// that does not parse (an unknown field, a value of the wrong type)
// refuses the token with 401. A token is unrestricted only when its claim
// says so (e.g. `actions=read,records,zones,server zones=*`).
type JWT struct {
	// Issuer is the expected iss claim. Required. With neither JWKSURL
	// nor JWKSFile, the keys are found through the issuer's OpenID
	// Connect discovery document
	// (<issuer>/.well-known/openid-configuration), fetched on first use.
	Issuer string `json:"issuer,omitempty"`

	// JWKSURL is the URL of the key set.
	JWKSURL string `json:"jwks_url,omitempty"`

	// JWKSFile is a file holding the key set; it is read at each config
	// load.
	JWKSFile string `json:"jwks_file,omitempty"`

	// CAFile is a PEM file of the CAs that sign the certificates of the
	// key set URL and the discovery document (e.g. a cluster's ca.crt);
	// default: the system's roots. It is read at each config load.
	CAFile string `json:"ca_file,omitempty"`

	// Audiences are accepted aud values; the token must name one.
	// Required.
	Audiences []string `json:"audiences,omitempty"`

	// Algorithms are the accepted signature algorithms, among
	// AsymmetricAlgorithms. Default: RS256, ES256.
	Algorithms []string `json:"algorithms,omitempty"`

	// JWKSRefresh is how often a key set from a URL (or discovery) is
	// fetched again. Default: 5m.
	JWKSRefresh caddy.Duration `json:"jwks_refresh,omitempty"`

	// JWKSMissRefresh is how soon after the last fetch a token whose kid
	// the cached set lacks may make it be fetched again; tokens that
	// come sooner are refused (401). Default: 1m, at most JWKSRefresh.
	JWKSMissRefresh caddy.Duration `json:"jwks_miss_refresh,omitempty"`

	// Leeway is the clock skew allowed on exp and nbf. Default: 30s.
	Leeway caddy.Duration `json:"leeway,omitempty"`

	// IdentityClaim names the claim that identifies the principal.
	// Default: sub.
	IdentityClaim string `json:"identity_claim,omitempty"`

	// ScopesClaim names the claim that carries the scope. Default:
	// zoneapi_scope.
	ScopesClaim string `json:"scopes_claim,omitempty"`

	// Subjects gives scopes to principals by their identity claim, e.g.
	// "system:serviceaccount:cert-manager:cert-manager".
	Subjects map[string]Scope `json:"subjects,omitempty"`

	// DefaultScope is the scope of tokens that neither carry the scope
	// claim nor are named in Subjects. Absent: such tokens may do nothing.
	DefaultScope *Scope `json:"default_scope,omitempty"`

	leeway   time.Duration
	idClaim  string
	scClaim  string
	subjects map[string]*Grant
	deflt    *Grant
	config   *oidc.Config

	mu       *sync.Mutex
	verifier *oidc.IDTokenVerifier
	ctx      context.Context
	client   *http.Client
	remote   *remoteKeySet // a URL's or discovery's key set; nil for a file
	cache    *tokenCache
	now      func() time.Time
}

// tokenCache remembers verified tokens, keyed by their SHA-256, until
// they expire (at most maxCacheAge), so a client's repeated requests
// cost one signature check. Only successes are cached.
type tokenCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]cachedToken
}

type cachedToken struct {
	id    *Identity
	until time.Time
}

const (
	maxCached   = 10000
	maxCacheAge = 5 * time.Minute
)

func (c *tokenCache) get(key [sha256.Size]byte, now time.Time) *Identity {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && now.Before(e.until) {
		return e.id
	}
	return nil
}

func (c *tokenCache) put(key [sha256.Size]byte, id *Identity, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		now := time.Now()
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			clear(c.m)
		}
	}
	c.m[key] = cachedToken{id: id, until: until}
}

// CaddyModule returns the Caddy module information.
func (JWT) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  Namespace + ".jwt",
		New: func() caddy.Module { return new(JWT) },
	}
}

// Provision checks the configuration and sets up the key set. A JWKS
// file is read here; a URL or discovery document is fetched on first use.
func (j *JWT) Provision(ctx caddy.Context) error {
	repl := caddy.NewReplacer()
	j.Issuer = repl.ReplaceKnown(j.Issuer, "")
	if j.Issuer == "" {
		return fmt.Errorf("issuer is required: the iss claim every token must carry")
	}
	if len(j.Audiences) == 0 {
		return fmt.Errorf("audiences: at least one is required")
	}
	if j.JWKSURL != "" && j.JWKSFile != "" {
		return fmt.Errorf("give jwks_url or jwks_file, not both")
	}
	algs := j.Algorithms
	if len(algs) == 0 {
		algs = []string{"RS256", "ES256"}
	}
	for _, a := range algs {
		if !slices.Contains(AsymmetricAlgorithms, a) {
			return fmt.Errorf("algorithm %q is not allowed: want some of %s (never none, never HMAC)", a, strings.Join(AsymmetricAlgorithms, ", "))
		}
	}
	j.leeway = 30 * time.Second
	if j.Leeway > 0 {
		j.leeway = time.Duration(j.Leeway)
	}
	j.idClaim = cmp.Or(j.IdentityClaim, "sub")
	j.scClaim = cmp.Or(j.ScopesClaim, "zoneapi_scope")
	j.subjects = map[string]*Grant{}
	for sub, sc := range j.Subjects {
		g, err := sc.Compile()
		if err != nil {
			return fmt.Errorf("subjects[%s]: %v", sub, err)
		}
		j.subjects[sub] = g // nil: everything
	}
	j.deflt = NoAccess()
	if j.DefaultScope != nil {
		g, err := j.DefaultScope.Compile()
		if err != nil {
			return fmt.Errorf("default_scope: %v", err)
		}
		j.deflt = g
	}
	// Expiry and not-before are checked here, with the leeway; the
	// audience against the list.
	j.config = &oidc.Config{SkipClientIDCheck: true, SkipExpiryCheck: true, SupportedSigningAlgs: algs}
	j.ctx = ctx
	j.client = &http.Client{Timeout: 10 * time.Second}
	if j.CAFile != "" {
		pem, err := os.ReadFile(repl.ReplaceKnown(j.CAFile, ""))
		if err != nil {
			return fmt.Errorf("ca_file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("ca_file: no PEM certificates")
		}
		j.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		}}
		j.ctx = oidc.ClientContext(ctx, j.client)
	}
	if j.now == nil {
		j.now = time.Now
	}
	j.mu = new(sync.Mutex)
	j.cache = &tokenCache{m: map[[sha256.Size]byte]cachedToken{}}
	switch {
	case j.JWKSFile != "":
		data, err := os.ReadFile(repl.ReplaceKnown(j.JWKSFile, ""))
		if err != nil {
			return fmt.Errorf("jwks_file: %v", err)
		}
		ks, err := newFileKeySet(data, algs)
		if err != nil {
			return fmt.Errorf("jwks_file: %v", err)
		}
		j.verifier = oidc.NewVerifier(j.Issuer, ks, j.config)
	case j.JWKSURL != "":
		j.verifier = oidc.NewVerifier(j.Issuer, j.newRemote(repl.ReplaceKnown(j.JWKSURL, ""), algs), j.config)
	}
	return nil
}

// newRemote returns the key set of url with the configured intervals.
func (j *JWT) newRemote(url string, algs []string) *remoteKeySet {
	ks := &remoteKeySet{url: url, client: j.client, refresh: defaultJWKSRefresh, miss: defaultJWKSMissRefresh,
		now: func() time.Time { return j.now() }}
	if j.JWKSRefresh > 0 {
		ks.refresh = time.Duration(j.JWKSRefresh)
	}
	if j.JWKSMissRefresh > 0 {
		ks.miss = time.Duration(j.JWKSMissRefresh)
	}
	ks.miss = min(ks.miss, ks.refresh)
	for _, a := range algs {
		ks.algs = append(ks.algs, jose.SignatureAlgorithm(a))
	}
	j.remote = ks
	return ks
}

// NoAccess returns a grant that allows nothing.
func NoAccess() *Grant {
	return &Grant{actions: map[Action]bool{}}
}

// getVerifier returns the verifier, running OpenID Connect discovery
// first when the key set comes from the issuer.
func (j *JWT) getVerifier() (*oidc.IDTokenVerifier, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.verifier != nil {
		return j.verifier, nil
	}
	ctx, cancel := context.WithTimeout(j.ctx, 10*time.Second)
	defer cancel()
	// The provider's key set keeps only ctx's HTTP client, not its
	// deadline, so it outlives this call.
	p, err := oidc.NewProvider(ctx, j.Issuer)
	if err != nil {
		return nil, err
	}
	var doc struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err := p.Claims(&doc); err != nil || doc.JWKSURL == "" {
		return nil, fmt.Errorf("the discovery document names no jwks_uri")
	}
	j.verifier = oidc.NewVerifier(j.Issuer, j.newRemote(doc.JWKSURL, j.config.SupportedSigningAlgs), j.config)
	return j.verifier, nil
}

// Authenticate verifies the token and returns its principal.
func (j *JWT) Authenticate(ctx context.Context, token string) (*Identity, error) {
	key := sha256.Sum256([]byte(token))
	if id := j.cache.get(key, time.Now()); id != nil {
		return id, nil
	}
	v, err := j.getVerifier()
	if err != nil {
		return nil, Unavailable("jwks_unavailable", "cannot check tokens: OpenID Connect discovery of "+j.Issuer+" failed: "+err.Error())
	}
	idt, err := v.Verify(ctx, token)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "fetching keys") {
			return nil, Unavailable("jwks_unavailable", "cannot check tokens: fetching the key set failed")
		}
		if strings.Contains(msg, "different provider") {
			return nil, Unauthorized("wrong_issuer", "Invalid token: wrong issuer")
		}
		return nil, Unauthorized("invalid_jwt", "Invalid token")
	}
	now := time.Now()
	if idt.Expiry.IsZero() {
		return nil, Unauthorized("invalid_jwt", "Invalid token: no expiry")
	}
	if now.After(idt.Expiry.Add(j.leeway)) {
		return nil, Unauthorized("expired_token", "Token expired")
	}
	var claims map[string]json.RawMessage
	if err := idt.Claims(&claims); err != nil {
		return nil, Unauthorized("invalid_jwt", "Invalid token")
	}
	if raw, ok := claims["nbf"]; ok {
		var nbf float64
		if json.Unmarshal(raw, &nbf) != nil || now.Add(j.leeway).Before(time.Unix(int64(nbf), 0)) {
			return nil, Unauthorized("invalid_jwt", "Invalid token: not valid yet")
		}
	}
	ok := false
	for _, a := range idt.Audience {
		if slices.Contains(j.Audiences, a) {
			ok = true
		}
	}
	if !ok {
		return nil, Unauthorized("wrong_audience", "Invalid token: wrong audience")
	}
	var subject string
	if raw, ok := claims[j.idClaim]; !ok || json.Unmarshal(raw, &subject) != nil || subject == "" {
		return nil, Unauthorized("invalid_jwt", "Invalid token: no "+j.idClaim+" claim")
	}
	id := &Identity{ID: "jwt:" + subject, Mode: "jwt"}
	claimed, hasClaim, err := j.claimGrant(claims)
	if err != nil {
		return nil, err
	}
	configured, hasSubject := j.subjects[subject]
	switch {
	case hasClaim && hasSubject:
		id.Grant = Intersect(claimed, configured)
	case hasClaim:
		id.Grant = claimed
	case hasSubject:
		id.Grant = configured
	default:
		id.Grant = j.deflt
	}
	until := idt.Expiry.Add(j.leeway)
	id.Expires = until
	if limit := now.Add(maxCacheAge); limit.Before(until) {
		until = limit
	}
	j.cache.put(key, id, until)
	return id, nil
}

// claimGrant reads the scope claim: has is false when the token carries
// none. A claim that grants nothing (null, "", " ", {}) gives NoAccess,
// never everything; one that does not parse or compile is a 401.
func (j *JWT) claimGrant(claims map[string]json.RawMessage) (g *Grant, has bool, err error) {
	raw, ok := claims[j.scClaim]
	if !ok {
		return nil, false, nil
	}
	var sc Scope
	if err := json.Unmarshal(raw, &sc); err != nil {
		return nil, true, Unauthorized("invalid_jwt", "Invalid token: claim "+j.scClaim+": "+err.Error())
	}
	if sc.IsEmpty() {
		return NoAccess(), true, nil
	}
	if g, err = sc.Compile(); err != nil {
		return nil, true, Unauthorized("invalid_jwt", "Invalid token: claim "+j.scClaim+": "+err.Error())
	}
	return g, true, nil
}

// fileKeySet is a key set read from a file; it picks keys by kid.
type fileKeySet struct {
	keys []jose.JSONWebKey
	algs []jose.SignatureAlgorithm
}

func newFileKeySet(data []byte, algs []string) (*fileKeySet, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	ks := &fileKeySet{}
	for _, k := range set.Keys {
		if !k.Valid() || !k.IsPublic() {
			return nil, fmt.Errorf("key %q: want a valid public key", k.KeyID)
		}
		ks.keys = append(ks.keys, k)
	}
	if len(ks.keys) == 0 {
		return nil, fmt.Errorf("no keys")
	}
	for _, a := range algs {
		ks.algs = append(ks.algs, jose.SignatureAlgorithm(a))
	}
	return ks, nil
}

// VerifySignature checks a JWS against the key of its kid (or every key
// when it names none).
func (ks *fileKeySet) VerifySignature(_ context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSigned(jwt, ks.algs)
	if err != nil {
		return nil, err
	}
	kid := jws.Signatures[0].Header.KeyID
	for i := range ks.keys {
		if kid == "" || ks.keys[i].KeyID == kid {
			if payload, err := jws.Verify(&ks.keys[i]); err == nil {
				return payload, nil
			}
		}
	}
	return nil, errors.New("no key of the key set verifies the token")
}

// UnmarshalCaddyfile reads the jwt mode's options:
//
//	auth jwt {
//		issuer         <url>
//		jwks_url       <url>
//		jwks_file      <path>
//		ca_file        <path>                 # CAs of jwks_url / discovery
//		audiences      <aud>...
//		algorithms     RS256|ES256|EdDSA|...
//		jwks_refresh      <duration>          # default 5m
//		jwks_miss_refresh <duration>          # default 1m
//		leeway         <duration>
//		identity_claim <claim>
//		scopes_claim   <claim>
//		subject        <identity> <scope fields: actions=… zones=… views=… names=… types=…>
//		default_scope  <scope fields>
//	}
func (j *JWT) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // mode name
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		args := d.RemainingArgs()
		one := func(dst *string) error {
			if len(args) != 1 {
				return d.ArgErr()
			}
			*dst = args[0]
			return nil
		}
		var err error
		switch key {
		case "issuer":
			err = one(&j.Issuer)
		case "jwks_url":
			err = one(&j.JWKSURL)
		case "jwks_file":
			err = one(&j.JWKSFile)
		case "ca_file":
			err = one(&j.CAFile)
		case "identity_claim":
			err = one(&j.IdentityClaim)
		case "scopes_claim":
			err = one(&j.ScopesClaim)
		case "audiences", "audience":
			if len(args) == 0 {
				return d.ArgErr()
			}
			j.Audiences = append(j.Audiences, args...)
		case "algorithms":
			for _, a := range args {
				if !slices.Contains(AsymmetricAlgorithms, a) {
					return d.Errf("algorithm %q is not allowed: want some of %s (never none, never HMAC)", a, strings.Join(AsymmetricAlgorithms, ", "))
				}
			}
			j.Algorithms = append(j.Algorithms, args...)
		case "jwks_refresh", "jwks_miss_refresh":
			var s string
			if err = one(&s); err == nil {
				dur, perr := caddy.ParseDuration(s)
				if perr != nil || dur <= 0 {
					return d.Errf("%s: want a positive duration such as 5m, got %q", key, s)
				}
				if key == "jwks_refresh" {
					j.JWKSRefresh = caddy.Duration(dur)
				} else {
					j.JWKSMissRefresh = caddy.Duration(dur)
				}
			}
		case "leeway":
			var s string
			if err = one(&s); err == nil {
				dur, perr := caddy.ParseDuration(s)
				if perr != nil || dur < 0 {
					return d.Errf("leeway: want a duration such as 30s, got %q", s)
				}
				j.Leeway = caddy.Duration(dur)
			}
		case "subject", "default_scope":
			err = j.unmarshalScope(d, key, args)
		default:
			return d.Errf("unrecognized auth jwt option %q", key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// unmarshalScope reads a subject or default_scope option (key) with its
// arguments: the scope is parsed and compiled, so a mistake is reported
// with the Caddyfile's line.
func (j *JWT) unmarshalScope(d *caddyfile.Dispenser, key string, args []string) error {
	text := args
	var sub string
	if key == "subject" {
		if len(args) < 1 {
			return d.ArgErr()
		}
		sub, text = args[0], args[1:]
	}
	sc, perr := ParseScope(strings.Join(text, " "))
	if perr == nil {
		_, perr = sc.Compile()
	}
	if perr != nil {
		return d.Errf("%s: %v", key, perr)
	}
	if key == "subject" {
		if j.Subjects == nil {
			j.Subjects = map[string]Scope{}
		}
		j.Subjects[sub] = sc
	} else {
		j.DefaultScope = &sc
	}
	return nil
}

// Interface guards
var (
	_ Authenticator         = (*JWT)(nil)
	_ caddy.Provisioner     = (*JWT)(nil)
	_ caddyfile.Unmarshaler = (*JWT)(nil)
	_ oidc.KeySet           = (*fileKeySet)(nil)
	_ oidc.KeySet           = (*remoteKeySet)(nil)
)
