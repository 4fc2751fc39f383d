package k8stokenreview

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

const ownToken = "module-own-sa-token"

// fakeAPI is a TLS server that answers TokenReviews as the Kubernetes
// API does (authentication.k8s.io/v1 JSON, 201 Created), from a table of
// tokens; "api-403"/"api-500" answer a metav1.Status error.
type fakeAPI struct {
	srv     *httptest.Server
	caFile  string
	tokFile string
	reviews atomic.Int32
	users   map[string]authnv1.TokenReviewStatus
	t       *testing.T
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, users: map[string]authnv1.TokenReviewStatus{}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	dir := t.TempDir()
	f.caFile = filepath.Join(dir, "ca.crt")
	f.tokFile = filepath.Join(dir, "token")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	if err := os.WriteFile(f.caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.tokFile, []byte(ownToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.reviews.Add(1)
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/apis/authentication.k8s.io/v1/tokenreviews" || r.Header.Get("Authorization") != "Bearer "+ownToken {
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Message: "Unauthorized", Code: 401})
		return
	}
	var tr authnv1.TokenReview
	if err := json.NewDecoder(r.Body).Decode(&tr); err != nil || tr.APIVersion != "authentication.k8s.io/v1" || tr.Kind != "TokenReview" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if tok, ok := strings.CutPrefix(tr.Spec.Token, "echo-"); ok {
		// An API (or a proxy before it) that quotes what it was sent:
		// the token whole, cut short, and the caller's own token.
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(metav1.Status{Status: "Failure", Code: 500,
			Message: fmt.Sprintf("cannot review token %q (prefix %s…, caller %s)", tr.Spec.Token, tok[:len(tok)/2], r.Header.Get("Authorization"))})
		return
	}
	switch tr.Spec.Token {
	case "api-403":
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Reason: metav1.StatusReasonForbidden, Code: 403,
			Message: `tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:dns:zoneapi" cannot create resource "tokenreviews"`})
		return
	case "api-500":
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(metav1.Status{Status: "Failure", Message: "etcdserver: request timed out", Code: 500})
		return
	}
	st, ok := f.users[tr.Spec.Token]
	if !ok {
		st = authnv1.TokenReviewStatus{Authenticated: false, Error: "[invalid bearer token, square/go-jose: error in cryptographic primitive]"}
	}
	if st.Authenticated && len(tr.Spec.Audiences) > 0 && st.Audiences == nil {
		st.Audiences = tr.Spec.Audiences
	}
	tr.Status = st
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(tr)
}

func (f *fakeAPI) sa(token, ns, name string) {
	f.users[token] = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{
		Username: "system:serviceaccount:" + ns + ":" + name, UID: "uid-" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}}
}

func provision(t testing.TB, tr *TokenReview) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := tr.Provision(ctx); err != nil {
		t.Fatal(err)
	}
}

func status(err error) (int, string) {
	var ae *auth.Error
	if errors.As(err, &ae) {
		return ae.Status, ae.Reason
	}
	return 0, fmt.Sprint(err)
}

func TestTokenReview(t *testing.T) {
	f := newFakeAPI(t)
	f.sa("cm-token", "cert-manager", "cert-manager")
	f.sa("dns-token", "external-dns", "external-dns")
	f.sa("other-ns-token", "default", "builder")
	f.sa("wrong-sa-token", "cert-manager", "cainjector")
	f.users["user-token"] = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "jane@example.com"}}
	// A user whose name mimics a namespace, as in bindcar's defect.
	f.users["fake-sa-token"] = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "cert-manager"}}
	f.users["aud-token"] = authnv1.TokenReviewStatus{Authenticated: true, Audiences: []string{"https://kubernetes.default.svc"},
		User: authnv1.UserInfo{Username: "system:serviceaccount:cert-manager:cert-manager"}}

	tr := &TokenReview{APIServer: f.srv.URL, CAFile: f.caFile, TokenFile: f.tokFile, Audiences: []string{"zoneapi"},
		Namespaces: []string{"cert-manager", "external-dns"}, ServiceAccounts: []string{"cert-manager:cert-manager", "system:serviceaccount:external-dns:external-dns"},
		Scopes: map[string]auth.Scope{
			"cert-manager:cert-manager": {Actions: []string{"records"}, Names: []string{"_acme-challenge.*"}, Types: []string{"TXT"}},
			"external-dns":              {Actions: []string{"records", "read"}},
		},
		CacheTTL: caddy.Duration(time.Hour)}
	provision(t, tr)
	ctx := context.Background()

	id, err := tr.Authenticate(ctx, "cm-token")
	if err != nil || id.ID != "system:serviceaccount:cert-manager:cert-manager" || id.Grant.AllowsAction(auth.ActionZones) || !id.Grant.AllowsRecord("_acme-challenge.x.", "TXT") {
		t.Fatalf("allowed account: %+v %v", id, err)
	}
	id, err = tr.Authenticate(ctx, "dns-token")
	if err != nil || !id.Grant.AllowsAction(auth.ActionRead) || id.Grant.AllowsAction(auth.ActionZones) {
		t.Fatalf("namespace scope: %+v %v", id, err)
	}
	for token, want := range map[string]string{
		"other-ns-token": "namespace_not_allowed",
		"wrong-sa-token": "service_account_not_allowed",
		"user-token":     "not_service_account",
		"fake-sa-token":  "not_service_account",
		"aud-token":      "wrong_audience",
		"unknown-token":  "token_review_rejected",
	} {
		if code, reason := status(func() error { _, err := tr.Authenticate(ctx, token); return err }()); code != 401 || reason != want {
			t.Errorf("%s: %d %s, want 401 %s", token, code, reason, want)
		}
	}
	for token, want := range map[string]string{"api-403": "cannot create resource", "api-500": "etcdserver: request timed out"} {
		_, err := tr.Authenticate(ctx, token)
		if code, _ := status(err); code != 503 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want 503 naming %q", token, err, want)
		}
	}

	// One review per token within the cache time (errors of the API are
	// not cached).
	before := f.reviews.Load()
	for i := 0; i < 5; i++ {
		_, _ = tr.Authenticate(ctx, "cm-token")
		_, _ = tr.Authenticate(ctx, "unknown-token")
	}
	if n := f.reviews.Load() - before; n != 0 {
		t.Errorf("%d reviews for tokens reviewed within the cache time, want 0", n)
	}
	_, _ = tr.Authenticate(ctx, "api-500")
	if n := f.reviews.Load() - before; n != 1 {
		t.Errorf("an API error was cached (%d reviews)", n)
	}

	// A short cache reviews again once it expires.
	short := &TokenReview{APIServer: f.srv.URL, CAFile: f.caFile, TokenFile: f.tokFile, CacheTTL: caddy.Duration(time.Nanosecond)}
	provision(t, short)
	_, _ = short.Authenticate(ctx, "cm-token")
	_, _ = short.Authenticate(ctx, "cm-token")
	if short.Reviews() != 2 {
		t.Errorf("%d reviews with an expired cache, want 2", short.Reviews())
	}
	// Without lists, any authenticated user passes, with full access.
	if id, err := short.Authenticate(ctx, "user-token"); err != nil || id.ID != "jane@example.com" || id.Grant != nil {
		t.Errorf("no lists: %+v %v", id, err)
	}

	// Unreachable API: 503.
	f.srv.Close()
	gone := &TokenReview{APIServer: f.srv.URL, CAFile: f.caFile, TokenFile: f.tokFile}
	provision(t, gone)
	_, err = gone.Authenticate(ctx, "cm-token")
	if code, _ := status(err); code != 503 || !strings.Contains(err.Error(), "could not be reached") || strings.Contains(err.Error(), "cm-token") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestTokenReviewConfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	tr := &TokenReview{}
	provision(t, tr)
	if tr.server != "https://10.96.0.1:443" || tr.caFile != DefaultCAFile || tr.tokFile != DefaultTokenFile {
		t.Errorf("in-cluster defaults: %s %s %s", tr.server, tr.caFile, tr.tokFile)
	}
	for name, bad := range map[string]*TokenReview{
		"http":    {APIServer: "http://k8s"},
		"account": {APIServer: "https://k8s", ServiceAccounts: []string{"nocolon"}},
		"scope":   {APIServer: "https://k8s", Scopes: map[string]auth.Scope{"ns": {Actions: []string{"all"}}}},
		"default": {APIServer: "https://k8s", DefaultScope: &auth.Scope{Types: []string{"NOPE"}}},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		if err := bad.Provision(ctx); err == nil {
			t.Errorf("%s: provisioned", name)
		}
		cancel()
	}
	var c TokenReview
	err := c.UnmarshalCaddyfile(caddyfile.NewTestDispenser(`k8s_token_review {
		api_server https://k8s.example:6443
		audiences zoneapi
		namespaces cert-manager
		service_accounts cert-manager:cert-manager
		scope cert-manager:cert-manager actions=records names=_acme-challenge.* types=TXT
		default_scope actions=read
		cache_ttl 30s
	}`))
	if err != nil || c.APIServer != "https://k8s.example:6443" || c.Scopes["cert-manager:cert-manager"].String() != "actions=records names=_acme-challenge.* types=TXT" || c.CacheTTL != caddy.Duration(30*time.Second) {
		t.Fatalf("%+v %v", c, err)
	}
}

// BenchmarkTokenReviewCached is the mode's per-request cost once a
// token's review is cached, against basic in the same run.
func BenchmarkTokenReviewCached(b *testing.B) {
	f := newFakeAPI(&testing.T{})
	defer f.srv.Close()
	f.sa("cm-token", "cert-manager", "cert-manager")
	tr := &TokenReview{APIServer: f.srv.URL, CAFile: f.caFile, TokenFile: f.tokFile, CacheTTL: caddy.Duration(time.Hour)}
	provision(b, tr)
	ctx := context.Background()
	if _, err := tr.Authenticate(ctx, "cm-token"); err != nil {
		b.Fatal(err)
	}
	var base, cached float64
	b.Run("basic", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = auth.Basic{}.Authenticate(ctx, "cm-token")
		}
		base = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("k8s_token_review cached", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := tr.Authenticate(ctx, "cm-token"); err != nil {
				b.Fatal(err)
			}
		}
		cached = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	fmt.Printf("auth mode %-24s %8.0f ns/op  %6.1fx basic (%d reviews sent)\n", "k8s_token_review cached", cached, cached/base, tr.Reviews())
}
