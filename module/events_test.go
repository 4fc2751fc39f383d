package module

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/config"
)

// TestEventsConfigChecked: the webhooks' settings are checked when the
// configuration loads (caddy validate), with a message naming the fault.
func TestEventsConfigChecked(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	t.Setenv("ZONEAPI_TEST_HOOK_SECRET", secret)
	for _, c := range []struct {
		name  string
		hooks []WebhookConfig
		want  string // "" = accepted
	}{
		{"ok", []WebhookConfig{{URL: "https://h.example/x", Secret: secret}}, ""},
		{"placeholder secret", []WebhookConfig{{URL: "https://h.example/x", Secret: "{env.ZONEAPI_TEST_HOOK_SECRET}"}}, ""},
		{"unset placeholder", []WebhookConfig{{URL: "https://h.example/x", Secret: "{env.ZONEAPI_TEST_NO_SUCH_VAR}"}}, "secret"},
		{"not whsec", []WebhookConfig{{URL: "https://h.example/x", Secret: "hunter2"}}, "whsec_"},
		{"short key", []WebhookConfig{{URL: "https://h.example/x", Secret: "whsec_" + base64.StdEncoding.EncodeToString([]byte("short"))}}, "24 to 64"},
		{"bad url", []WebhookConfig{{URL: "ftp://h.example/x", Secret: secret}}, "http or https"},
		{"unknown type", []WebhookConfig{{URL: "https://h.example/x", Secret: secret, Types: []string{"zone.renamed"}}}, "unknown event type"},
		{"bad zone", []WebhookConfig{{URL: "https://h.example/x", Secret: secret, Zones: []string{"a*.example"}}}, "zone"},
		{"bad name", []WebhookConfig{{URL: "https://h.example/x", Secret: secret, Name: "a/b"}}, "name"},
		{"same name", []WebhookConfig{{URL: "https://h.example/x", Secret: secret, Name: "a"}, {URL: "https://h.example/y", Secret: secret, Name: "a"}}, "two webhooks"},
		{"same url", []WebhookConfig{{URL: "https://h.example/x", Secret: secret}, {URL: "https://h.example/x", Secret: secret}}, "two webhooks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := webhooks(&EventsConfig{Webhooks: c.hooks})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), secret[8:]) {
				t.Errorf("the error shows the secret: %v", err)
			}
		})
	}
}

// TestWebhooksNeedTheHistory: webhooks with `history off` fail the
// configuration's load (caddy validate), and a bad webhook fails it
// with its reason.
func TestWebhooksNeedTheHistory(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	secret := "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	h := &Handler{Options: config.Options{ZoneDir: "/nonexistent/zones", History: &HistoryConfig{Off: true},
		Events: &EventsConfig{Webhooks: []WebhookConfig{{URL: "https://h.example/x", Secret: secret}}}}}
	if err := h.Provision(ctx); err == nil || !strings.Contains(err.Error(), "need the history on") {
		t.Errorf("webhooks with history off: %v", err)
	}
	h.Cleanup()
	h = &Handler{Options: config.Options{ZoneDir: "/nonexistent/zones", Events: &EventsConfig{Webhooks: []WebhookConfig{{URL: "https://h.example/x", Secret: "plain"}}}}}
	if err := h.Provision(ctx); err == nil || !strings.Contains(err.Error(), "whsec_") {
		t.Errorf("a webhook with a bad secret: %v", err)
	}
	h.Cleanup()
}

// TestStreamUntil: the event stream ends before the server's write
// timeout and when the identity's credential expires, whichever comes
// first. (Before: only the write timeout; without one, a stream opened
// with a JWT went on after the token expired.)
func TestStreamUntil(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := func(writeTimeout time.Duration, expires time.Time) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/events", nil)
		ctx := r.Context()
		if writeTimeout > 0 {
			ctx = context.WithValue(ctx, caddyhttp.ServerCtxKey, &caddyhttp.Server{WriteTimeout: caddy.Duration(writeTimeout)})
		}
		return auth.Admitted(r.WithContext(ctx), &auth.Identity{ID: "jwt:x", Mode: "jwt", Expires: expires})
	}
	for _, c := range []struct {
		name         string
		writeTimeout time.Duration
		expires      time.Time
		want         time.Time
	}{
		{"neither", 0, time.Time{}, time.Time{}},
		{"write timeout", 10 * time.Second, time.Time{}, now.Add(9 * time.Second)},
		{"token expiry", 0, now.Add(time.Hour), now.Add(time.Hour)},
		{"token expires first", 10 * time.Minute, now.Add(time.Minute), now.Add(time.Minute)},
		{"write timeout first", 10 * time.Second, now.Add(time.Hour), now.Add(9 * time.Second)},
	} {
		if got := streamUntil(req(c.writeTimeout, c.expires), now); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
