package zoneservice

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

func sp(v []string) *[]string { return &v }

func TestModifyZoneApply(t *testing.T) {
	const base = `zone "z.test" { type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; };`
	yes, pol, none := true, "default", ""
	ignore, badNames := "ignore", "ignore; allow-update { any; }"
	for _, tc := range []struct {
		name string
		req  SettingsChange
		want string // the block after the change
		err  string
	}{
		{"empty", SettingsChange{}, "", "at least one field"},
		{"transfer keeps keys and others", SettingsChange{AllowTransfer: sp([]string{"192.0.2.1", "!192.0.2.0/24"})},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { key "zoneapi-update"; 192.0.2.1; !192.0.2.0/24; }; allow-update { key "zoneapi-update"; }; notify explicit; };`, ""},
		{"update with addresses keeps the key", SettingsChange{AllowUpdate: sp([]string{"127.0.0.1"})},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; 127.0.0.1; }; notify explicit; };`, ""},
		{"a list naming keys replaces them", SettingsChange{AllowUpdate: sp([]string{"key other"})},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "other"; }; notify explicit; };`, ""},
		{"empty keeps keys", SettingsChange{AllowTransfer: sp(nil)},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; };`, ""},
		{"notify, policy, inline", SettingsChange{AlsoNotify: sp([]string{"[::1]:5300 key k1", "192.0.2.2"}), DNSSECPolicy: &pol, InlineSigning: &yes},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; also-notify { ::1 port 5300 key "k1"; 192.0.2.2; }; dnssec-policy "default"; inline-signing yes; };`, ""},
		{"remove policy", SettingsChange{DNSSECPolicy: &none},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; };`, ""},
		{"check-names ignore", SettingsChange{CheckNames: &ignore},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; check-names ignore; };`, ""},
		{"check-names removed", SettingsChange{CheckNames: &none},
			`{ type primary; file "/z/z.test.zone"; allow-transfer { 10.0.0.0/8; key "zoneapi-update"; }; allow-update { key "zoneapi-update"; }; notify explicit; };`, ""},
		{"check-names bad", SettingsChange{CheckNames: &badNames}, "", "checkNames"},
		{"primaries of a primary", SettingsChange{Primaries: sp([]string{"192.0.2.1"})}, "", "secondary zones"},
		{"empty primaries", SettingsChange{Primaries: sp(nil)}, "", "at least one primary"},
		{"bad entries", SettingsChange{AlsoNotify: sp([]string{"x", "1.2.3.4:0", "fe80::1%eth0"}), AllowTransfer: sp([]string{"10.0.0.1/8", "key", "key a b"})}, "",
			"alsoNotify[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zc, err := rndc.ParseZoneStatement(base)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := validateChange(&tc.req)
			if err == nil {
				err = ch.apply(zc)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := zc.Block(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	bad := `a"b`
	if _, err := validateChange(&SettingsChange{DNSSECPolicy: &bad}); err == nil {
		t.Error("a quote in a policy name was accepted")
	}
	req := SettingsChange{AlsoNotify: sp([]string{"x", "1.2.3.4:0"}), AllowTransfer: sp([]string{"10.0.0.1/8", "key", "key a b"})}
	_, err := validateChange(&req)
	for _, f := range []string{"alsoNotify[0]", "alsoNotify[1]", "allowTransfer[0]", "allowTransfer[1]", "allowTransfer[2]"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("error %v does not name %s", err, f)
		}
	}
}

func TestSettingsOfShowzoneStatement(t *testing.T) {
	zc, err := rndc.ParseZoneStatement(`zone "s.test" { type slave; file "/z/s"; masters { 192.0.2.1 port 5353 key "k"; 2001:db8::1; }; allow-transfer  { 10.0.0.0/8; key "x"; !192.0.2.3/32; "any"; }; inline-signing no; };`)
	if err != nil {
		t.Fatal(err)
	}
	v := SettingsOf(zc)
	if v.Type != "secondary" || v.File != "/z/s" || v.InlineSigning == nil || *v.InlineSigning {
		t.Errorf("view = %+v", v)
	}
	if want := []string{"192.0.2.1:5353 key k", "2001:db8::1"}; !reflect.DeepEqual(v.Primaries, want) {
		t.Errorf("primaries = %q", v.Primaries)
	}
	if want := []string{"10.0.0.0/8", "key x", "!192.0.2.3", "any"}; !reflect.DeepEqual(v.AllowTransfer, want) {
		t.Errorf("allowTransfer = %q", v.AllowTransfer)
	}
	// What the view shows is accepted back by PATCH.
	for _, s := range v.Primaries {
		if _, err := ServerElement(s); err != nil {
			t.Errorf("ServerElement(%q): %v", s, err)
		}
	}
	for _, s := range v.AllowTransfer {
		if _, _, err := ACLElement(s); err != nil {
			t.Errorf("ACLElement(%q): %v", s, err)
		}
	}
}

// FuzzModifyZone: whatever a PATCH body holds, what it renders for
// modzone is one block that parses back with exactly the statement's
// clauses plus the changed ones: nothing in the body can break out of a
// clause or add one it does not name.
func FuzzModifyZone(f *testing.F) {
	f.Add("192.0.2.1:53 key k", "10.0.0.0/8", "key other", "default", true)
	f.Add(`1.2.3.4"; }; allow-update { any`, `any; }; also-notify { 1.1.1.1`, `key "x"; }; y {`, `a" ; b`, false)
	f.Add("[2001:db8::1]:5353", "!192.0.2.0/24", "", "", true)
	const base = `zone "z.test" { type primary; file "/z/z.test.zone"; allow-update { key "zoneapi-update"; }; notify explicit; };`
	allowed := map[string]bool{"type": true, "file": true, "allow-update": true, "notify": true,
		"also-notify": true, "allow-transfer": true, "dnssec-policy": true, "inline-signing": true}
	f.Fuzz(func(t *testing.T, notify, xfr, upd, policy string, inline bool) {
		req := SettingsChange{AlsoNotify: sp([]string{notify}), AllowTransfer: sp([]string{xfr}), AllowUpdate: sp([]string{upd}),
			DNSSECPolicy: &policy, InlineSigning: &inline}
		ch, err := validateChange(&req)
		if err != nil {
			return
		}
		zc, err := rndc.ParseZoneStatement(base)
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.apply(zc); err != nil {
			return
		}
		block := zc.Block()
		again, err := rndc.ParseZoneStatement(`zone "z.test" ` + block)
		if err != nil {
			t.Fatalf("rendered %q does not parse: %v", block, err)
		}
		if !reflect.DeepEqual(again.Clauses, zc.Clauses) {
			t.Fatalf("rendered %q parses to %+v, not %+v", block, again.Clauses, zc.Clauses)
		}
		for _, c := range again.Clauses {
			if !allowed[c.Name] {
				t.Fatalf("rendered %q has clause %q", block, c.Name)
			}
			for _, term := range c.Value {
				if _, ok := c.Value.Elems(); term.Kind == rndc.ListTerm && !ok {
					t.Fatalf("clause %s %q is not one braced list", c.Name, c.Value)
				}
			}
		}
		if v, _ := again.Get("type"); v.String() != "primary" {
			t.Fatalf("type changed: %q", block)
		}
	})
}
