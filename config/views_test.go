package config

import (
	"strings"
	"testing"
)

// TestViews: the views option's checks, and a default view's key and
// DNS server becoming the handler's own.
func TestViews(t *testing.T) {
	key := func(name string) *KeyConfig {
		return &KeyConfig{Name: name, Algorithm: "hmac-sha256", Secret: "c2VjcmV0"}
	}
	for _, tc := range []struct {
		name    string
		views   []ViewConfig
		catalog string
		err     string
	}{
		{"ok", []ViewConfig{{Name: "internal", UpdateKey: key("k")}, {Name: "external", Default: true}}, "cat.test", ""},
		{"destination only", []ViewConfig{{Name: "lan", DNSServer: "127.0.0.2:53"}}, "", ""},
		{"bad name", []ViewConfig{{Name: "a b"}}, "", "views[0]: invalid view name"},
		{"twice", []ViewConfig{{Name: "v", UpdateKey: key("k")}, {Name: "v", UpdateKey: key("k2")}}, "", "configured twice"},
		{"two defaults", []ViewConfig{{Name: "a", Default: true}, {Name: "b", Default: true}}, "", "both the default"},
		{"no key", []ViewConfig{{Name: "internal"}}, "", "view internal: give it the TSIG key"},
		{"key without secret", []ViewConfig{{Name: "internal", UpdateKey: &KeyConfig{Name: "k"}}}, "", "give it the TSIG key"},
		{"catalog without default", []ViewConfig{{Name: "internal", UpdateKey: key("k")}}, "cat.test", "catalog zone lives in the default view"},
	} {
		uk, server := key("zoneapi-update"), "127.0.0.1:53"
		tab, err := newViews(tc.views, &uk, &server, tc.catalog)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			continue
		}
		if err == nil {
			if err := tab.validate(); err != nil {
				t.Errorf("%s: validate: %v", tc.name, err)
			}
		}
	}
	uk, server := key("zoneapi-update"), "127.0.0.1:53"
	tab, err := newViews([]ViewConfig{{Name: "internal", UpdateKey: key("int"), DNSServer: "127.0.0.3:53", Default: true}, {Name: "lan", DNSServer: "127.0.0.2:53"}}, &uk, &server, "")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Default != "internal" || uk.Name != "int" || server != "127.0.0.3:53" {
		t.Errorf("default view's settings: def %q key %q server %q", tab.Default, uk.Name, server)
	}
	if vs := tab.Other["lan"]; vs == nil || vs.DNSServer != "127.0.0.2:53" || tab.Other["internal"] != nil {
		t.Errorf("other views: %+v", tab.Other)
	}
}
