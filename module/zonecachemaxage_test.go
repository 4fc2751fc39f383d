package module

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// TestZoneCacheMaxAgeReachesServices: zone_cache_max_age reaches the
// zone server's configuration, which gives it to every view's service
// (off: negative, no cache; absent: 0, the default). Before, the max age
// was not an option: every service had the default.
func TestZoneCacheMaxAgeReachesServices(t *testing.T) {
	for _, c := range []struct {
		opt  string
		want time.Duration
	}{{"zone_cache_max_age 10s", 10 * time.Second}, {"zone_cache_max_age off", -1}, {"zone_cache_max_age 0", -1}, {"", 0}} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("zone_api {\n zone_dir /x\n " + c.opt + "\n}")); err != nil {
			t.Fatalf("%q: %v", c.opt, err)
		}
		if got := zoneservice.NewServer(h.serverConfig(&rndc.Client{})).Root().ZoneCacheMaxAge; got != c.want {
			t.Errorf("%q: the root service's ZoneCacheMaxAge %v, want %v", c.opt, got, c.want)
		}
	}
}
