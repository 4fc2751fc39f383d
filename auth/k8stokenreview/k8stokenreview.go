// Package k8stokenreview adds the k8s_token_review authentication mode
// (zone_api.auth.k8s_token_review) to a Caddy build: bearer tokens are
// checked by the Kubernetes API with an authentication.k8s.io/v1
// TokenReview, then restricted to allowed namespaces and service
// accounts.
//
// It is the Go counterpart of the service specification's build-time
// token-review feature: the default build does not import this package
// (zoneapi.go does not), so it lacks the mode and its Kubernetes
// dependencies. Build it in with `ZONEAPI_K8S_TOKEN_REVIEW=1 bash
// scripts/build.sh`, or add `--with
// github.com/zoneapi/caddy-zoneapi/auth/k8stokenreview` to xcaddy.
package k8stokenreview

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

func init() {
	caddy.RegisterModule(TokenReview{})
}

// In-cluster defaults.
const (
	DefaultCAFile    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
	DefaultTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	DefaultCacheTTL  = 10 * time.Second
	DefaultTimeout   = 5 * time.Second
	saPrefix         = "system:serviceaccount:"
	reviewPath       = "/apis/authentication.k8s.io/v1/tokenreviews"
)

// TokenReview authenticates bearer tokens with the Kubernetes
// TokenReview API. A token passes when the API says it is authenticated
// for one of Audiences (when set) and its user is a service account in
// Namespaces and ServiceAccounts (when set); a user that is not a service
// account never passes a namespace or account list. Results are cached
// for CacheTTL, keyed by the token's SHA-256, so a client's burst costs
// one review. An API that cannot be reached or answers an error gives 503
// with the reason (logged at error), not 401.
//
// The identity is the username (system:serviceaccount:<ns>:<name>). Its
// scope is the Scopes entry of its account ("<ns>:<name>"), else of its
// namespace, else DefaultScope, else (with no Scopes and no DefaultScope)
// everything.
type TokenReview struct {
	// APIServer is the Kubernetes API's base URL. Default:
	// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT.
	APIServer string `json:"api_server,omitempty"`

	// CAFile is the PEM file of the CAs that sign the API server's
	// certificate. Default: the pod's service-account ca.crt.
	CAFile string `json:"ca_file,omitempty"`

	// TokenFile holds the token this module authenticates to the API with
	// (it needs RBAC to create tokenreviews, e.g. system:auth-delegator).
	// It is re-read every minute, since the kubelet rotates it. Default:
	// the pod's service-account token.
	TokenFile string `json:"token_file,omitempty"`

	// Audiences are sent in the review; the token must be valid for one.
	Audiences []string `json:"audiences,omitempty"`

	// Namespaces, when set, are the namespaces whose service accounts may
	// pass.
	Namespaces []string `json:"namespaces,omitempty"`

	// ServiceAccounts, when set, are the service accounts that may pass,
	// as "<namespace>:<name>".
	ServiceAccounts []string `json:"service_accounts,omitempty"`

	// Scopes gives scopes by service account ("<namespace>:<name>") or
	// namespace ("<namespace>").
	Scopes map[string]auth.Scope `json:"scopes,omitempty"`

	// DefaultScope is the scope of principals Scopes does not name.
	DefaultScope *auth.Scope `json:"default_scope,omitempty"`

	// CacheTTL is how long a review's result is reused. Default: 10s.
	CacheTTL caddy.Duration `json:"cache_ttl,omitempty"`

	// Timeout bounds each review. Default: 5s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	server   string
	caFile   string
	tokFile  string
	ttl      time.Duration
	timeout  time.Duration
	grants   map[string]*auth.Grant
	deflt    *auth.Grant
	hasScope bool

	state *state
}

// state is what the mode keeps at run time.
type state struct {
	mu       sync.Mutex
	client   *http.Client
	token    string
	tokenAt  time.Time
	cache    map[[32]byte]entry
	requests int // reviews sent, for tests
}

type entry struct {
	id  *auth.Identity
	err error
	at  time.Time
}

// CaddyModule returns the Caddy module information.
func (TokenReview) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  auth.Namespace + ".k8s_token_review",
		New: func() caddy.Module { return new(TokenReview) },
	}
}

// Provision checks the configuration. Files are read, and the API
// contacted, on first use.
func (t *TokenReview) Provision(caddy.Context) error {
	repl := caddy.NewReplacer()
	t.server = strings.TrimSuffix(repl.ReplaceKnown(t.APIServer, ""), "/")
	if t.server == "" {
		host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
		if host == "" || port == "" {
			return fmt.Errorf("api_server is not set and KUBERNETES_SERVICE_HOST/PORT are empty (not in a pod?)")
		}
		t.server = "https://" + net.JoinHostPort(host, port)
	}
	if !strings.HasPrefix(t.server, "https://") {
		return fmt.Errorf("api_server %q: want an https:// URL", t.server)
	}
	t.caFile = cmp.Or(repl.ReplaceKnown(t.CAFile, ""), DefaultCAFile)
	t.tokFile = cmp.Or(repl.ReplaceKnown(t.TokenFile, ""), DefaultTokenFile)
	t.ttl = DefaultCacheTTL
	if t.CacheTTL != 0 {
		t.ttl = time.Duration(t.CacheTTL)
	}
	t.timeout = DefaultTimeout
	if t.Timeout > 0 {
		t.timeout = time.Duration(t.Timeout)
	}
	for _, sa := range t.ServiceAccounts {
		if ns, name, ok := strings.Cut(strings.TrimPrefix(sa, saPrefix), ":"); !ok || ns == "" || name == "" {
			return fmt.Errorf("service_accounts: %q: want <namespace>:<name>", sa)
		}
	}
	t.grants = map[string]*auth.Grant{}
	for k, sc := range t.Scopes {
		g, err := sc.Compile()
		if err != nil {
			return fmt.Errorf("scopes[%s]: %v", k, err)
		}
		t.grants[strings.TrimPrefix(k, saPrefix)] = g
	}
	t.hasScope = len(t.Scopes) > 0 || t.DefaultScope != nil
	t.deflt = auth.NoAccess()
	if t.DefaultScope != nil {
		g, err := t.DefaultScope.Compile()
		if err != nil {
			return fmt.Errorf("default_scope: %v", err)
		}
		t.deflt = g
	}
	t.state = &state{cache: map[[32]byte]entry{}}
	return nil
}

// Authenticate reviews the token (or reuses a review younger than the
// cache TTL).
func (t *TokenReview) Authenticate(ctx context.Context, token string) (*auth.Identity, error) {
	key := sha256.Sum256([]byte(token))
	now := time.Now()
	st := t.state
	st.mu.Lock()
	if e, ok := st.cache[key]; ok && now.Sub(e.at) < t.ttl {
		st.mu.Unlock()
		return e.id, e.err
	}
	st.mu.Unlock()

	id, err := t.review(ctx, token)
	var ae *auth.Error
	if e, ok := err.(*auth.Error); ok {
		ae = e
	}
	if err == nil || (ae != nil && ae.Status == http.StatusUnauthorized) {
		st.mu.Lock()
		if len(st.cache) >= 10000 {
			for k, e := range st.cache {
				if now.Sub(e.at) >= t.ttl {
					delete(st.cache, k)
				}
			}
			if len(st.cache) >= 10000 {
				clear(st.cache)
			}
		}
		st.cache[key] = entry{id: id, err: err, at: now}
		st.mu.Unlock()
	}
	return id, err
}

// review posts one TokenReview and judges its answer.
func (t *TokenReview) review(ctx context.Context, token string) (*auth.Identity, error) {
	client, ownToken, err := t.clientAndToken()
	if err != nil {
		return nil, auth.Unavailable("token_review_setup", "token review is unavailable: "+err.Error())
	}
	body, _ := json.Marshal(authnv1.TokenReview{
		TypeMeta: metaTypeMeta(),
		Spec:     authnv1.TokenReviewSpec{Token: token, Audiences: t.Audiences},
	})
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.server+reviewPath, bytes.NewReader(body))
	if err != nil {
		return nil, auth.Unavailable("token_review_setup", "token review is unavailable: "+err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+ownToken)
	t.state.mu.Lock()
	t.state.requests++
	t.state.mu.Unlock()
	// Every text from outside (the transport's error, the API's message)
	// passes through auth.Redact with both tokens before it is returned,
	// logged or answered.
	outside := func(s string) string { return auth.Redact(s, token, ownToken) }
	resp, err := client.Do(req)
	if err != nil {
		return nil, auth.Unavailable("token_review_unreachable", "token review is unavailable: the Kubernetes API at "+t.server+" could not be reached: "+outside(err.Error()))
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, auth.Unavailable("token_review_error", fmt.Sprintf("token review is unavailable: the Kubernetes API answered %s: %s", resp.Status, outside(apiMessage(raw))))
	}
	var out authnv1.TokenReview
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, auth.Unavailable("token_review_error", "token review is unavailable: the Kubernetes API's answer is not a TokenReview: "+outside(err.Error()))
	}
	return t.judge(out.Status)
}

// judge applies the checks to a review's status.
func (t *TokenReview) judge(s authnv1.TokenReviewStatus) (*auth.Identity, error) {
	if !s.Authenticated {
		return nil, auth.Unauthorized("token_review_rejected", "Invalid token")
	}
	if len(t.Audiences) > 0 && !slices.ContainsFunc(s.Audiences, func(a string) bool { return slices.Contains(t.Audiences, a) }) {
		return nil, auth.Unauthorized("wrong_audience", "Invalid token: wrong audience")
	}
	user := s.User.Username
	ns, name, isSA := "", "", false
	if rest, ok := strings.CutPrefix(user, saPrefix); ok {
		ns, name, isSA = strings.Cut(rest, ":")
		isSA = isSA && ns != "" && name != "" && !strings.Contains(name, ":")
	}
	if len(t.Namespaces) > 0 || len(t.ServiceAccounts) > 0 {
		if !isSA {
			return nil, auth.Unauthorized("not_service_account", "Token not allowed: only service accounts may use this API")
		}
		if len(t.Namespaces) > 0 && !slices.Contains(t.Namespaces, ns) {
			return nil, auth.Unauthorized("namespace_not_allowed", "Token not allowed: namespace "+ns+" is not allowed")
		}
		if len(t.ServiceAccounts) > 0 && !slices.ContainsFunc(t.ServiceAccounts, func(a string) bool { return strings.TrimPrefix(a, saPrefix) == ns+":"+name }) {
			return nil, auth.Unauthorized("service_account_not_allowed", "Token not allowed: service account "+ns+":"+name+" is not allowed")
		}
	}
	id := &auth.Identity{ID: user, Mode: "k8s_token_review"}
	if t.hasScope {
		id.Grant = t.deflt
		if g, ok := t.grants[ns+":"+name]; ok && isSA {
			id.Grant = g
		} else if g, ok := t.grants[ns]; ok && isSA {
			id.Grant = g
		}
	}
	return id, nil
}

// clientAndToken returns the HTTPS client (CA loaded on first use) and
// this module's own token (re-read each minute).
func (t *TokenReview) clientAndToken() (*http.Client, string, error) {
	st := t.state
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.client == nil {
		pem, err := os.ReadFile(t.caFile)
		if err != nil {
			return nil, "", fmt.Errorf("ca_file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, "", fmt.Errorf("ca_file %s: no PEM certificates", t.caFile)
		}
		st.client = &http.Client{Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	if st.token == "" || time.Since(st.tokenAt) > time.Minute {
		b, err := os.ReadFile(t.tokFile)
		if err != nil {
			return nil, "", fmt.Errorf("token_file: %v", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return nil, "", fmt.Errorf("token_file %s is empty", t.tokFile)
		}
		st.token, st.tokenAt = tok, time.Now()
	}
	return st.client, st.token, nil
}

// Cleanup closes the idle connections to the API when the configuration
// is unloaded.
func (t *TokenReview) Cleanup() error {
	if t.state == nil {
		return nil
	}
	t.state.mu.Lock()
	defer t.state.mu.Unlock()
	if t.state.client != nil {
		t.state.client.CloseIdleConnections()
	}
	return nil
}

// Reviews returns how many reviews were sent (for tests and benchmarks).
func (t *TokenReview) Reviews() int {
	t.state.mu.Lock()
	defer t.state.mu.Unlock()
	return t.state.requests
}

// apiMessage extracts a metav1.Status message, or a short body.
func apiMessage(raw []byte) string {
	var s struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &s) == nil && s.Message != "" {
		return s.Message
	}
	if len(raw) > 200 {
		raw = raw[:200]
	}
	return strings.TrimSpace(string(raw))
}

// UnmarshalCaddyfile reads the mode's options:
//
//	auth k8s_token_review {
//		api_server       <https URL>          # default from KUBERNETES_SERVICE_HOST/PORT
//		ca_file          <path>               # default the pod's ca.crt
//		token_file       <path>               # default the pod's token
//		audiences        <aud>...
//		namespaces       <ns>...
//		service_accounts <ns>:<name>...
//		scope            <ns>|<ns>:<name> <scope fields: actions=… zones=… names=… types=…>
//		default_scope    <scope fields>
//		cache_ttl        <duration>           # default 10s
//		timeout          <duration>           # default 5s
//	}
func (t *TokenReview) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // mode name
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		args := d.RemainingArgs()
		if len(args) == 0 {
			return d.ArgErr()
		}
		switch key {
		case "api_server", "ca_file", "token_file":
			if len(args) != 1 {
				return d.ArgErr()
			}
			*map[string]*string{"api_server": &t.APIServer, "ca_file": &t.CAFile, "token_file": &t.TokenFile}[key] = args[0]
		case "audiences":
			t.Audiences = append(t.Audiences, args...)
		case "namespaces":
			t.Namespaces = append(t.Namespaces, args...)
		case "service_accounts":
			t.ServiceAccounts = append(t.ServiceAccounts, args...)
		case "scope", "default_scope":
			text := args
			var who string
			if key == "scope" {
				who, text = args[0], args[1:]
			}
			sc, err := auth.ParseScope(strings.Join(text, " "))
			if err == nil {
				_, err = sc.Compile()
			}
			if err != nil {
				return d.Errf("%s: %v", key, err)
			}
			if key == "scope" {
				if t.Scopes == nil {
					t.Scopes = map[string]auth.Scope{}
				}
				t.Scopes[who] = sc
			} else {
				t.DefaultScope = &sc
			}
		case "cache_ttl", "timeout":
			if len(args) != 1 {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(args[0])
			if err != nil || dur < 0 {
				return d.Errf("%s: want a duration such as 10s, got %q", key, args[0])
			}
			if key == "cache_ttl" {
				t.CacheTTL = caddy.Duration(dur)
			} else {
				t.Timeout = caddy.Duration(dur)
			}
		default:
			return d.Errf("unrecognized auth k8s_token_review option %q", key)
		}
	}
	return nil
}

// Interface guards
var (
	_ auth.Authenticator    = (*TokenReview)(nil)
	_ caddy.Provisioner     = (*TokenReview)(nil)
	_ caddy.CleanerUpper    = (*TokenReview)(nil)
	_ caddyfile.Unmarshaler = (*TokenReview)(nil)
)

func metaTypeMeta() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"}
}
