package module

import (
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/config"
)

// TestViewTable: the views option's checks, and a default view's key and
// DNS server becoming the handler's own.
func TestViewTable(t *testing.T) {
	key := func(name string) *config.KeyConfig {
		return &config.KeyConfig{Name: name, Algorithm: "hmac-sha256", Secret: "c2VjcmV0"}
	}
	for _, tc := range []struct {
		name    string
		views   []config.ViewConfig
		catalog string
		err     string
	}{
		{"ok", []config.ViewConfig{{Name: "internal", UpdateKey: key("k")}, {Name: "external", Default: true}}, "cat.test", ""},
		{"destination only", []config.ViewConfig{{Name: "lan", DNSServer: "127.0.0.2:53"}}, "", ""},
		{"bad name", []config.ViewConfig{{Name: "a b"}}, "", "views[0]: invalid view name"},
		{"twice", []config.ViewConfig{{Name: "v", UpdateKey: key("k")}, {Name: "v", UpdateKey: key("k2")}}, "", "configured twice"},
		{"two defaults", []config.ViewConfig{{Name: "a", Default: true}, {Name: "b", Default: true}}, "", "both the default"},
		{"no key", []config.ViewConfig{{Name: "internal"}}, "", "view internal: give it the TSIG key"},
		{"key without secret", []config.ViewConfig{{Name: "internal", UpdateKey: &config.KeyConfig{Name: "k"}}}, "", "give it the TSIG key"},
		{"catalog without default", []config.ViewConfig{{Name: "internal", UpdateKey: key("k")}}, "cat.test", "catalog zone lives in the default view"},
	} {
		uk, server := key("zoneapi-update"), "127.0.0.1:53"
		tab, err := newViewTable(tc.views, &uk, &server, tc.catalog)
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
	tab, err := newViewTable([]config.ViewConfig{{Name: "internal", UpdateKey: key("int"), DNSServer: "127.0.0.3:53", Default: true}, {Name: "lan", DNSServer: "127.0.0.2:53"}}, &uk, &server, "")
	if err != nil {
		t.Fatal(err)
	}
	if tab.def != "internal" || uk.Name != "int" || server != "127.0.0.3:53" {
		t.Errorf("default view's settings: def %q key %q server %q", tab.def, uk.Name, server)
	}
	if vs := tab.other["lan"]; vs == nil || vs.dnsServer != "127.0.0.2:53" || tab.other["internal"] != nil {
		t.Errorf("other views: %+v", tab.other)
	}
	if tab.rest().Resolve("") != "internal" || tab.rest().Resolve("lan") != "lan" {
		t.Error("resolve")
	}
}
