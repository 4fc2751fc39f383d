package zoneservice

import (
	"testing"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// TestIndexedInConfiguredDefaultView: with views configured and one of
// them the default (the root's View), a zone of the root's index in that
// view is one the API created, which the inventory does not ask named
// about (zonestatus, one command a zone); a zone of another view's index
// is that view's alone. Before, the configured default view's zones were
// not known as indexed, and the inventory asked named about each of them.
func TestIndexedInConfiguredDefaultView(t *testing.T) {
	root, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	internal, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := root.Put(zonestore.Entry{Name: "api1.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	if err := internal.Put(zonestore.Entry{Name: "api2.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	inv := &inventory.Inventory{}
	NewServer(ServerConfig{
		Names:     []string{"internal", "external"},
		Root:      ViewParts{Name: "external", Store: root},
		Views:     []ViewParts{{Name: "internal", Store: internal}},
		Inventory: inv,
	})
	for _, c := range []struct {
		name, view string
		want       bool
	}{
		{"api1.test", "external", true},
		{"api1.test", "internal", false},
		{"api2.test", "internal", true},
		{"api2.test", "external", false},
		{"other.test", "external", false},
	} {
		if got := inv.Indexed(c.name, c.view); got != c.want {
			t.Errorf("Indexed(%s, %s) = %v, want %v", c.name, c.view, got, c.want)
		}
	}
}
