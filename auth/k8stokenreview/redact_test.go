package k8stokenreview

import (
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// TestAPIErrorTextNeverCarriesTheToken: when the Kubernetes API answers
// an error whose message quotes the reviewed token (whole or cut short)
// or the module's own token, neither the 503 message nor any log line
// holds the tokens or a piece of them (8 characters or more).
func TestAPIErrorTextNeverCarriesTheToken(t *testing.T) {
	f := newFakeAPI(t)
	tr := &TokenReview{APIServer: f.srv.URL, CAFile: f.caFile, TokenFile: f.tokFile}
	provision(t, tr)
	core, logs := observer.New(zapcore.DebugLevel)
	g := &auth.Guard{Mode: tr, ModeName: "k8s_token_review", Log: zap.New(core)}
	token := "echo-eyJhbGciOiJSUzI1NiIsImtpZCI6IkFCQyJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlc2lnbmF0dXJl"
	r := httptest.NewRequest("GET", "/api/v1/zones", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	_, rej := g.Check(r)
	if rej == nil || rej.Status != 503 {
		t.Fatalf("want a 503, got %+v", rej)
	}
	texts := []string{rej.Message}
	for _, e := range logs.All() {
		texts = append(texts, e.Message)
		for _, v := range e.ContextMap() {
			if s, ok := v.(string); ok {
				texts = append(texts, s)
			}
		}
	}
	for _, text := range texts {
		for _, secret := range []string{token, ownToken} {
			for i := 0; i+8 <= len(secret); i++ {
				if strings.Contains(text, secret[i:i+8]) {
					t.Fatalf("%q holds %q, a piece of a token", text, secret[i:i+8])
				}
			}
		}
	}
	if !strings.Contains(rej.Message, "500") {
		t.Errorf("the message lost the API's status: %q", rej.Message)
	}
}
