package config

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`zone_api {
		zone_dir /var/cache/bind
		rndc {
			server 127.0.0.1:9953
			key rndc-key hmac-sha512 {env.SECRET}
			timeout 3s
		}
		update_key zoneapi-update
		disable_auth
	}`)
	var h Options
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if h.ZoneDir != "/var/cache/bind" || h.RNDC.Server != "127.0.0.1:9953" || h.RNDC.Key.Secret != "{env.SECRET}" ||
		h.RNDC.Key.Algorithm != "hmac-sha512" || time.Duration(h.RNDC.Timeout) != 3*time.Second || h.UpdateKey.Name != "zoneapi-update" || !h.DisableAuth {
		t.Errorf("parsed zone_dir %q disable_auth %v rndc %+v update %+v", h.ZoneDir, h.DisableAuth, h.RNDC, h.UpdateKey)
	}
}

func TestValidateKeyConfig(t *testing.T) {
	cases := []struct {
		k          KeyConfig
		needSecret bool
		err        string
	}{
		{KeyConfig{File: "/k"}, true, ""},
		{KeyConfig{Name: "k", Algorithm: "hmac-sha256", Secret: "{env.X}"}, true, ""},
		{KeyConfig{Name: "k"}, false, ""},
		{KeyConfig{Name: "k"}, true, "is required"},
		{KeyConfig{}, false, "is required"},
		{KeyConfig{File: "/k", Secret: "x"}, true, "not both"},
		{KeyConfig{Name: "k", Secret: "x"}, true, "needs a name, an algorithm and a secret"},
		{KeyConfig{Name: "k", Algorithm: "hmac-sha3", Secret: "x"}, true, "sha3"},
	}
	for _, tc := range cases {
		err := tc.k.Validate("rndc key", tc.needSecret)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: err %v, want %q", tc.k, err, tc.err)
		}
	}
}
