package module

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
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
