package console

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/console"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// idp is a small OpenID Connect provider for the tests: a discovery
// document, an authorization endpoint that signs in "alice" at once and
// sends the browser back with a code, after checking the PKCE
// parameters (S256 and a challenge of the right form); a token endpoint
// that gives the tokens only for the code's verifier (the SHA-256 of
// the code_verifier must be the challenge), once; and the JWKS of the
// RSA key its ID tokens are signed with (RS256).
type idp struct {
	srv      *httptest.Server
	key      *rsa.PrivateKey
	clientID string

	mu sync.Mutex
	// redirect is the client's registered redirect URI, and origin the
	// console's, allowed by CORS at the token endpoint.
	redirect, origin string
	codes            map[string]idpGrant
	// authorized are the authorization requests' parameters; issued
	// the ID tokens given; refused why token requests were refused.
	authorized []url.Values
	issued     []string
	refused    []string
}

type idpGrant struct{ challenge, redirect, nonce string }

// scopeAll is the zoneapi_scope claim of the provider's tokens.
const scopeAll = "actions=read,records,zones,server zones=*"

var challengeForm = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func startIDP(t *testing.T, clientID string) *idp {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &idp{key: key, clientID: clientID, codes: map[string]idpGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("/token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *idp) discovery(w http.ResponseWriter, r *http.Request) {
	u := p.srv.URL
	writeJSON(w, 200, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
		"jwks_uri": u + "/jwks", "response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"}})
}

func (p *idp) jwks(w http.ResponseWriter, r *http.Request) {
	b64 := base64.RawURLEncoding.EncodeToString
	writeJSON(w, 200, map[string]any{"keys": []map[string]string{{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
		"n": b64(p.key.N.Bytes()), "e": b64(big.NewInt(int64(p.key.E)).Bytes())}}})
}

// authorize checks the request as a provider requiring PKCE does and
// sends the browser back with a code bound to the challenge.
func (p *idp) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.authorized = append(p.authorized, q)
	switch {
	case q.Get("client_id") != p.clientID || q.Get("redirect_uri") != p.redirect:
		http.Error(w, "unknown client or redirect_uri", 400)
		return
	case q.Get("response_type") != "code", q.Get("state") == "", q.Get("nonce") == "",
		q.Get("code_challenge_method") != "S256", !challengeForm.MatchString(q.Get("code_challenge")):
		http.Error(w, "invalid_request: want response_type=code, state, nonce and a PKCE S256 code_challenge", 400)
		return
	}
	code := rand.Text()
	p.codes[code] = idpGrant{challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), nonce: q.Get("nonce")}
	http.Redirect(w, r, p.redirect+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
}

// token trades a code for the tokens when the verifier hashes to the
// code's challenge; a code is used once.
func (p *idp) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Header.Get("Origin") == p.origin {
		w.Header().Set("Access-Control-Allow-Origin", p.origin)
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		return
	}
	refuse := func(why string) {
		p.refused = append(p.refused, why)
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": why})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("grant_type") != "authorization_code" {
		refuse("want a POST of grant_type=authorization_code")
		return
	}
	f := r.PostForm
	g, ok := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code"))
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case !ok:
		refuse("unknown or used code")
	case f.Get("client_id") != p.clientID || f.Get("redirect_uri") != g.redirect:
		refuse("client_id or redirect_uri differ from the authorization request's")
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		refuse("code_verifier does not match the code_challenge")
	default:
		id := p.mint(map[string]any{"sub": "alice", "aud": p.clientID, "nonce": g.nonce})
		p.issued = append(p.issued, id)
		writeJSON(w, 200, map[string]any{"token_type": "Bearer", "expires_in": 600, "id_token": id, "access_token": rand.Text()})
	}
}

// mint signs a token of the provider's (RS256) with the claims, plus
// iss, iat, exp and the zoneapi_scope claim.
func (p *idp) mint(claims map[string]any) string {
	now := time.Now()
	c := map[string]any{"iss": p.srv.URL, "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "zoneapi_scope": scopeAll}
	for k, v := range claims {
		c[k] = v
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "k1"}) + "." + enc(c)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, p.key, crypto.SHA256, sum[:])
	if err != nil {
		panic(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// refuseOnce answers the first request of the method to URLs matching
// pattern with a 401, as the API does once a token expired, and lets
// every other request through, until stop is called.
func refuseOnce(t *testing.T, e *env, pattern, method string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(e.ctx)
	t.Cleanup(cancel)
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(e.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: pattern}}}); err != nil {
		t.Fatal(err)
	}
	go func() {
		refused := false
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method == method && !refused {
				refused = true
				_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 401,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}, {Name: "WWW-Authenticate", Value: `Bearer realm="zone_api"`}},
					Body:            []byte(`{"error":"Unauthorized","message":"token expired"}`)})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	return func() {
		cancel()
		if _, err := chromedp.Call(e.ctx, fetch.Disable, struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
}

// startOIDC is start with the API's auth in jwt mode with the provider
// as its issuer (audience: the console's client id), and the console
// offering the sign-in with it; e.tok["admin"] is a token of the
// provider's for the test's own API calls.
func startOIDC(t *testing.T, p *idp) *env {
	t.Helper()
	e := start(t, func(o *testcaddy.Options) {
		i := strings.Index(o.APIExtra, "auth static {")
		o.APIExtra = o.APIExtra[:i] + fmt.Sprintf("auth jwt {\n\tissuer %s\n\taudiences %s\n\talgorithms RS256\n}", p.srv.URL, p.clientID)
		o.SiteExtra = fmt.Sprintf("handle /console* {\n\t\tzone_api_console {\n\t\t\toidc_issuer %s\n\t\t\toidc_client_id %s\n\t\t\toidc_name \"Test IdP\"\n\t\t}\n\t}", p.srv.URL, p.clientID)
		o.Env = append(o.Env, "RUST_LOG=trace")
	})
	p.mu.Lock()
	p.redirect, p.origin = e.console, e.cd.Base
	p.mu.Unlock()
	e.tok = map[string]string{"admin": p.mint(map[string]any{"sub": "setup", "aud": p.clientID})}
	return e
}

// TestSignInOIDC: with the API's auth in jwt mode and the console
// configured with the same issuer, "Sign in with Test IdP" runs the
// authorization code flow with PKCE against a provider the test runs:
// the provider got an S256 challenge and gave the tokens for the
// matching verifier; the console, signed in as jwt:alice, lists the
// zones and stages an edit; its apply gets a 401, and the sign-in with
// the provider again (the page is left and reloaded) stages the edit
// again, which is then applied and served by named. The code and state
// are gone from the URL; the ID token is in no URL, no localStorage key
// or value, no line of Caddy's logs at RUST_LOG=trace, and is forgotten
// at sign-out. An answer with a state this tab did not start is refused
// without asking the token endpoint; a verifier changed on its way (the
// DevTools Fetch domain rewrites the token request) is refused by the
// provider, and the console shows its answer and is not signed in. Fails
// on a console without PKCE (the provider refuses the authorization
// request) or whose verifier is not the challenge's (the token request).
func TestSignInOIDC(t *testing.T) {
	p := startIDP(t, "zoneapi-console")
	e := startOIDC(t, p)
	e.createZone("oidc.test", [3]string{"www", "A", "192.0.2.1"})

	e.run("loading the console", chromedp.Navigate(e.console+"#/zones"), chromedp.WaitVisible(chromedp.CSS(`dialog.signin .oidcbtn`)))
	e.waitText("dialog.signin .oidcbtn", "Sign in with Test IdP")
	e.docShot("oidc")
	if bad := e.axe("OIDC sign-in"); len(bad) > 0 {
		t.Errorf("axe: %s", strings.Join(bad, "\n"))
	}
	e.click("dialog.signin .oidcbtn")
	e.run("waiting for the sign-in", waitSignedIn)
	e.waitText(".who .id", "jwt:alice")
	if loc := evalAs[string](e, `location.href`); loc != e.console+"#/zones" {
		t.Errorf("after the sign-in the page is at %s, want %s#/zones (no code or state)", loc, e.console)
	}
	p.mu.Lock()
	if len(p.authorized) != 1 || len(p.issued) != 1 || len(p.refused) != 0 {
		t.Fatalf("the provider saw %d authorization requests, issued %d tokens, refused %v", len(p.authorized), len(p.issued), p.refused)
	}
	if q := p.authorized[0]; q.Get("code_challenge_method") != "S256" || q.Get("scope") != "openid" {
		t.Errorf("authorization request %v", q)
	}
	tok := p.issued[0]
	p.mu.Unlock()
	if got := evalAs[string](e, `sessionStorage.getItem('zoneapi.console.token')`); got != tok {
		t.Errorf("the session holds %.20q…, not the ID token the provider issued", got)
	}

	// The journey: the zones, an edit; its apply gets a 401 (the token
	// expired, say): the sign-in with the provider leaves the page and
	// comes back with the edit staged again; applied, named serves it.
	e.waitText("za-zones tbody", "oidc.test")
	e.open("#/zones/oidc.test/records")
	e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the zone's records")
	e.stageEdit("www A", "192.0.2.9")
	stop := refuseOnce(t, e, "*/api/v1/zones/oidc.test/records", "PATCH")
	e.click("za-zone .pending button.primary")
	e.waitText("dialog.signin", "token expired")
	e.waitText("dialog.signin .oidc .hint", "kept in this tab")
	e.docShot("oidc-401")
	e.click("dialog.signin .oidcbtn")
	e.run("waiting for the sign-in", waitSignedIn)
	e.waitText("za-zone .notice", "Your pending changes from before the sign-in are back (1 RRset).")
	e.waitText("za-zone .pending", "192.0.2.9")
	e.want("www.oidc.test", dns.TypeA, "192.0.2.1")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("www.oidc.test", dns.TypeA, "192.0.2.9")
	stop()
	if ch := e.changes("oidc.test"); ch[len(ch)-1]["identity"] != "jwt:alice" {
		t.Errorf("the last change was made by %v, want jwt:alice", ch[len(ch)-1]["identity"])
	}
	p.mu.Lock()
	tokens := append([]string(nil), p.issued...)
	p.mu.Unlock()
	if len(tokens) != 2 {
		t.Fatalf("the provider issued %d tokens, want 2 (two sign-ins)", len(tokens))
	}

	// Where the tokens are not.
	if ls := evalAs[string](e, `JSON.stringify(Object.entries(localStorage))`); ls != "[]" {
		t.Errorf("localStorage: %s", ls)
	}
	e.mu.Lock()
	urls := append([]string{evalAs[string](e, `location.href`)}, e.urls...)
	e.mu.Unlock()
	sawCode := false
	for _, u := range urls {
		for _, tok := range tokens {
			if strings.Contains(u, tok) {
				t.Errorf("a URL holds the token: %s", u)
			}
		}
		sawCode = sawCode || strings.Contains(u, "/console/?code=")
	}
	if !sawCode {
		t.Error("no URL with the provider's code seen: the URL check would prove nothing")
	}
	e.click(".who button") // sign out
	e.waitJS(`document.querySelector('dialog.signin').open`, "the sign-in after sign-out")
	if s := evalAs[string](e, `JSON.stringify(Object.entries(sessionStorage))`); s != "[]" {
		t.Errorf("sessionStorage after sign-out: %s", s)
	}

	// An answer this tab did not ask for.
	e.run("a forged answer", chromedp.Navigate(e.console+"?code=forged&state=forged"))
	e.waitText("dialog.signin .signin-msg", "does not belong to a sign-in started in this tab")
	if s := evalAs[string](e, `location.search`); s != "" {
		t.Errorf("the forged answer stayed in the URL: %s", s)
	}

	// A verifier changed on its way to the token endpoint.
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(e.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: p.srv.URL + "/token"}}}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			var body []byte
			for _, d := range ev.Request.PostDataEntries {
				body = append(body, d.Bytes...)
			}
			f, _ := url.ParseQuery(string(body))
			f.Set("code_verifier", strings.Repeat("A", 43))
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID, PostData: []byte(f.Encode())})
		}
	}()
	e.click("dialog.signin .oidcbtn")
	e.waitText("dialog.signin .signin-msg", "code_verifier does not match the code_challenge")
	cancel()
	if _, err := chromedp.Call(e.ctx, fetch.Disable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	if len(p.authorized) != 3 || len(p.issued) != 2 || len(p.refused) != 1 {
		t.Errorf("the provider saw %d authorization requests, issued %d tokens, refused %v; want 3, 2 and the verifier", len(p.authorized), len(p.issued), p.refused)
	}
	p.mu.Unlock()
	if evalAs[bool](e, `!!document.querySelector('.who .id') || sessionStorage.getItem('zoneapi.console.token') !== null`) {
		t.Error("signed in with a refused verifier")
	}

	// The page's CSP allows the token endpoint; the assets' do not.
	e.mu.Lock()
	pages := 0
	for u, h := range e.responses {
		want := console.CSP
		if pu, _ := url.Parse(u); pu != nil && pu.Path == "/console/" {
			want = console.CSPWith(p.srv.URL + "/token")
			pages++
		}
		if got := header(h, "content-security-policy"); got != want {
			t.Errorf("%s: CSP %q, want %q", u, got, want)
		}
	}
	e.mu.Unlock()
	if pages < 2 {
		t.Errorf("%d console pages seen, want the first and the provider's answers", pages)
	}

	// Caddy's logs, zone_api's at trace.
	e.cd.Stop()
	debugLines := 0
	for _, name := range []string{e.cd.LogPath(), filepath.Join(e.cd.Dir, "caddy.stderr")} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, tok := range tokens {
				if strings.Contains(line, tok) {
					t.Errorf("%s has a line with the token: %s", name, line)
				}
			}
			if strings.Contains(line, `"level":"debug"`) && strings.Contains(line, `"target":"http.handlers.zone_api`) {
				debugLines++
			}
		}
	}
	if debugLines == 0 {
		t.Error("caddy's log has no debug line of zone_api: RUST_LOG=trace did not take, and the check proves nothing")
	}
	e.noProblems()
}
