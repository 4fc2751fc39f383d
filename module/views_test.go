package module

import (
	"testing"

	"github.com/zoneapi/caddy-zoneapi/config"
)

// TestViewTable: the views as package rest reads them, the default view
// resolving a request that names none (config's TestViews checks the
// option).
func TestViewTable(t *testing.T) {
	tab := newViewTable(config.Views{Names: []string{"internal", "lan"}, Default: "internal",
		Other: map[string]*config.View{"lan": {Name: "lan", DNSServer: "127.0.0.2:53"}}})
	if vs := tab.other["lan"]; vs == nil || vs.DNSServer != "127.0.0.2:53" || tab.other["internal"] != nil {
		t.Errorf("other views: %+v", tab.other)
	}
	if tab.rest().Resolve("") != "internal" || tab.rest().Resolve("lan") != "lan" {
		t.Error("resolve")
	}
}
