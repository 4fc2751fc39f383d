package zoneservice

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
)

func TestKeyBits(t *testing.T) {
	for _, tc := range []struct {
		rr   string
		bits int
	}{
		{"example. 3600 IN DNSKEY 257 3 13 OoFPZsZOthRFG2HbsEpKjT8HFlhRNj5ES6cBA/yanvBtFZWGVunQW66QWi5b2IEldYnPybDkL/freEbBGiY6oQ==", 256},
		// RFC 5702 section 6.1's 512-bit RSA/SHA-256 key.
		{"example.net. 3600 IN DNSKEY 256 3 8 AwEAAcFcGsaxxdgiuuGmCkVImy4h99CqT7jwY3pexPGcnUFtR2Fh36BponcwtkZ4cAgtvd4Qs8PkxUdp6p/DlUmObdk=", 512},
	} {
		rr, err := dns.NewRR(tc.rr)
		if err != nil {
			t.Fatal(err)
		}
		if got := keyBits(rr.(*dns.DNSKEY)); got != tc.bits {
			t.Errorf("keyBits(%s) = %d, want %d", tc.rr, got, tc.bits)
		}
	}
}

// TestSigningWaitsForKeys: a modify that gives a primary zone a
// dnssec-policy answers once named publishes the zone's keys, so that a
// client reading them right after finds them; when they do not come, it
// asks named to run its key manager for the zone (rndc loadkeys), which
// BIND 9.18 now and then does not run for a zone given a policy. A policy
// that signs nothing (none) is not waited for.
func TestSigningWaitsForKeys(t *testing.T) {
	r := newOpsRig(t)
	r.dns = dnstest.NewServer(t, map[string]string{"sign.test": "$TTL 300\n@ SOA ns1.sign.test. admin.sign.test. 1 3600 600 604800 300\n@ NS ns1.sign.test.\nns1 A 192.0.2.53\n"})
	r.svc.Updater = newTestUpdater(t, r.dns.Addr)
	r.ans.set("showzone sign.test", rndc.Response{Text: `zone "sign.test" { type primary; file "/z/sign.test.zone"; allow-update { key "zoneapi-update"; }; };`})
	r.ans.set("modzone sign.test", rndc.Response{Text: "zone modified"})
	r.ans.setFunc("loadkeys sign.test", func() rndc.Response {
		soa, _ := dns.NewRR("sign.test. 300 IN SOA ns1.sign.test. admin.sign.test. 2 3600 600 604800 300")
		key, _ := dns.NewRR("sign.test. 300 IN DNSKEY 257 3 13 OoFPZsZOthRFG2HbsEpKjT8HFlhRNj5ES6cBA/yanvBtFZWGVunQW66QWi5b2IEldYnPybDkL/freEbBGiY6oQ==")
		r.dns.Change("sign.test", soa, key)
		return rndc.Response{}
	})
	ctx := context.Background()
	none := "none"
	if _, err := r.svc.Modify(ctx, "sign.test", &SettingsChange{DNSSECPolicy: &none}); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(r.named.Commands(), func(c string) bool { return strings.HasPrefix(c, "loadkeys") }) {
		t.Errorf("dnssec-policy none waited for keys: %q", r.named.Commands())
	}
	policy := "default"
	if _, err := r.svc.Modify(ctx, "sign.test", &SettingsChange{DNSSECPolicy: &policy}); err != nil {
		t.Fatal(err)
	}
	keys, err := r.svc.Records().Keys(ctx, "sign.test")
	if err != nil || len(keys) != 1 || keys[0].Flags != 257 {
		t.Errorf("keys right after the modify that signed the zone: %+v, %v", keys, err)
	}
	if !slices.Contains(r.named.Commands(), "loadkeys sign.test") {
		t.Errorf("named was not asked to run its key manager: %q", r.named.Commands())
	}
}
