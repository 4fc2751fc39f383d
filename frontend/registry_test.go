package frontend

import (
	"net/http"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// TestRegisterIsAGuestModule: a front end registered under a name is the
// Caddy guest module zone_api.frontends.<name>, in Caddy's module
// registry (before, it was only in a map of this package), and Lookup
// finds its Mount there; a name no front end has is nil.
func TestRegisterIsAGuestModule(t *testing.T) {
	owns := func(path string) bool { return path == "/registry-test" }
	Register("registry_test", &Mount{Owns: owns, Error: func(http.ResponseWriter, int, string) {}})
	info, err := caddy.GetModule("zone_api.frontends.registry_test")
	if err != nil {
		t.Fatalf("the front end is not a Caddy module: %v", err)
	}
	if _, ok := info.New().(Mounter); !ok {
		t.Fatalf("the module %s is %T, not a Mounter", info.ID, info.New())
	}
	listed := false
	for _, mi := range caddy.GetModules(Namespace) {
		listed = listed || mi.ID == "zone_api.frontends.registry_test"
	}
	if !listed {
		t.Errorf("the front end is not listed in the namespace %s", Namespace)
	}
	m := Lookup("registry_test")
	if m == nil || !m.Owns("/registry-test") {
		t.Fatalf("Lookup = %+v, want the registered Mount", m)
	}
	if m := Lookup("no_such_front_end"); m != nil {
		t.Errorf("Lookup of a name no front end has = %+v, want nil", m)
	}
}
