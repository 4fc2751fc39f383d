package externaldns

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

func TestProvisionZones(t *testing.T) {
	t.Setenv("ZONEAPI_TEST_ZONES", "b.example, C.Example. b.example")
	h := &Handler{Zones: []string{"a.example.", "{env.ZONEAPI_TEST_ZONES}"}}
	if err := h.Provision(caddy.Context{Context: context.Background()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.zones, " "); got != "a.example b.example c.example" {
		t.Errorf("zones %q", got)
	}
	if err := (&Handler{Zones: []string{"bad..name"}}).Provision(caddy.Context{Context: context.Background()}); err == nil {
		t.Error("a bad zone name was accepted")
	}
}
