package console

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// OIDC is the sign-in with an OpenID Connect provider: the browser runs
// the authorization code flow with PKCE (S256) itself, as a public client
// (no secret), and uses the token it gets as the bearer token of the
// REST API, whose jwt auth mode checks it (its issuer the same, its
// audiences naming the client id when the ID token is used).
//
// The console's handler reads the provider's discovery document
// (<issuer>/.well-known/openid-configuration) when a page is asked for
// (at most once a minute while it fails, again after an hour once read),
// so that a provider that is down does not stop Caddy from starting; the
// page names the endpoints, and its CSP allows requests to the token
// endpoint only, besides the console's own origin.
type OIDC struct {
	// Issuer is the provider's issuer URL, as the API's jwt auth names it.
	Issuer string `json:"issuer"`
	// ClientID is the console's client id at the provider (a public
	// client whose redirect URI is the console's page URL).
	ClientID string `json:"client_id"`
	// Scopes are asked for; default openid.
	Scopes []string `json:"scopes,omitempty"`
	// Token is the token the console sends to the API: id_token
	// (default; its audience is the client id) or access_token.
	Token string `json:"token,omitempty"`
	// Name is shown on the button ("Sign in with <name>"); default the
	// issuer's host.
	Name string `json:"name,omitempty"`
	// CAFile is a PEM file of the CAs that sign the provider's
	// certificate, for the discovery document; default: the system's
	// roots. (The browser trusts what the system gives it.)
	CAFile string `json:"ca_file,omitempty"`

	client *http.Client
	mu     sync.Mutex
	found  *oidcEndpoints
	at     time.Time // when found was read, or the last failure
	err    error
}

// oidcEndpoints are what the page needs of the discovery document.
type oidcEndpoints struct {
	Authorization string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
}

const (
	oidcRetry   = time.Minute
	oidcRefresh = time.Hour
)

// provision checks the configuration and applies the defaults.
func (o *OIDC) provision() error {
	if o.Issuer == "" || o.ClientID == "" {
		return errors.New("oidc: both oidc_issuer and oidc_client_id are needed")
	}
	if _, err := endpointURL(o.Issuer); err != nil {
		return fmt.Errorf("oidc_issuer: %v", err)
	}
	if len(o.Scopes) == 0 {
		o.Scopes = []string{"openid"}
	}
	if !slices.Contains(o.Scopes, "openid") {
		o.Scopes = append([]string{"openid"}, o.Scopes...)
	}
	switch o.Token {
	case "":
		o.Token = "id_token"
	case "id_token", "access_token":
	default:
		return fmt.Errorf("oidc_token %q: want id_token or access_token", o.Token)
	}
	if o.Name == "" {
		u, _ := url.Parse(o.Issuer)
		o.Name = u.Host
	}
	o.client = &http.Client{Timeout: 5 * time.Second}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return fmt.Errorf("oidc_ca_file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("oidc_ca_file %s: no PEM certificate in it", o.CAFile)
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		o.client.Transport = t
	}
	return nil
}

// endpoints returns the provider's endpoints, reading the discovery
// document when they are not known (or an hour old); a known answer
// outlives a failed refresh.
func (o *OIDC) endpoints(ctx context.Context) (*oidcEndpoints, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := time.Now()
	if o.found != nil && now.Sub(o.at) < oidcRefresh {
		return o.found, nil
	}
	if o.found == nil && o.err != nil && now.Sub(o.at) < oidcRetry {
		return nil, o.err
	}
	found, err := o.discover(ctx)
	o.at = now
	if err != nil && o.found != nil {
		// The endpoints known stay in use; asked again in an hour.
		return o.found, nil
	}
	o.found, o.err = found, err
	return found, err
}

// discover reads and checks the discovery document: its issuer must be
// the configured one (OpenID Connect Discovery 1.0, section 4.3), its
// endpoints absolute https URLs (http on a loopback host), and when it
// lists the PKCE methods it supports, S256 among them.
func (o *OIDC) discover(ctx context.Context) (*oidcEndpoints, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(o.Issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := o.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the provider's discovery document: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the provider's discovery document: %s", res.Status)
	}
	var doc struct {
		Issuer string `json:"issuer"`
		oidcEndpoints
		Methods []string `json:"code_challenge_methods_supported"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("the provider's discovery document: %v", err)
	}
	if doc.Issuer != o.Issuer {
		return nil, fmt.Errorf("the provider's discovery document names the issuer %q, not %q", doc.Issuer, o.Issuer)
	}
	if doc.Methods != nil && !slices.Contains(doc.Methods, "S256") {
		return nil, fmt.Errorf("the provider does not support PKCE with S256 (code_challenge_methods_supported: %v)", doc.Methods)
	}
	for what, u := range map[string]string{"authorization_endpoint": doc.Authorization, "token_endpoint": doc.Token} {
		if _, err := endpointURL(u); err != nil {
			return nil, fmt.Errorf("the provider's %s: %v", what, err)
		}
	}
	return &doc.oidcEndpoints, nil
}

// endpointURL checks a provider URL: absolute, https (or http on a
// loopback host), no user info or fragment, and nothing that would end
// a CSP source expression (whitespace, ';', ','). It returns the URL
// without its query, as the CSP names it.
func endpointURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" || strings.ContainsAny(s, " \t\r\n;,'\"") {
		return "", fmt.Errorf("%q is not an absolute URL without user info, fragment, quotes, ';' or ','", s)
	}
	loopback := u.Hostname() == "localhost"
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
		loopback = true
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback) {
		return "", fmt.Errorf("%q: want https (http only on a loopback host)", s)
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath(), nil
}

// pageConfig is what the page tells the browser of the sign-in: the
// meta element zoneapi-oidc's content, and the CSP's connect-src
// addition (the token endpoint), or the reason it is unavailable.
type pageConfig struct {
	Issuer        string   `json:"issuer"`
	ClientID      string   `json:"clientId"`
	Scopes        []string `json:"scopes"`
	Token         string   `json:"token"`
	Name          string   `json:"name"`
	Authorization string   `json:"authorizationEndpoint,omitempty"`
	TokenEndpoint string   `json:"tokenEndpoint,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// page returns the page's sign-in configuration and the extra
// connect-src source of its CSP.
func (o *OIDC) page(ctx context.Context) (pageConfig, string) {
	c := pageConfig{Issuer: o.Issuer, ClientID: o.ClientID, Scopes: o.Scopes, Token: o.Token, Name: o.Name}
	ep, err := o.endpoints(ctx)
	if err != nil {
		c.Error = err.Error()
		return c, ""
	}
	c.Authorization, c.TokenEndpoint = ep.Authorization, ep.Token
	src, _ := endpointURL(ep.Token)
	return c, src
}
