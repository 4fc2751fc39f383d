package module

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestDisableAuthValueNotUnderstood: DISABLE_AUTH other than "true"
// leaves authentication on, and says so in a warning naming the value;
// "true" disables it; unset says nothing.
func TestDisableAuthValueNotUnderstood(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	for _, c := range []struct {
		value    string
		disabled bool
		warns    bool
	}{
		{"TRUE", false, true}, {"1", false, true}, {"yes", false, true},
		{"true", true, false}, {"", false, false}, {"false", false, false},
	} {
		t.Setenv("DISABLE_AUTH", c.value)
		core, logs := observer.New(zapcore.WarnLevel)
		h := &Handler{}
		h.setLoggers(zap.New(core))
		if err := h.provisionAuth(ctx); err != nil {
			t.Fatal(err)
		}
		if h.authDisabled != c.disabled {
			t.Errorf("DISABLE_AUTH=%q: disabled %v, want %v", c.value, h.authDisabled, c.disabled)
		}
		warned := false
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "DISABLE_AUTH") && strings.Contains(e.Message, `"`+c.value+`"`) {
				warned = true
			}
		}
		if warned != c.warns {
			t.Errorf("DISABLE_AUTH=%q: warned %v, want %v (logs %v)", c.value, warned, c.warns, logs.All())
		}
	}
}
