package zoneapi

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the dependencies pointing one way (see the README's
// Layout): the packages below module/ know nothing of HTTP or Caddy, and
// each imports only the project packages listed for it.
func TestLayering(t *testing.T) {
	const mod = "github.com/zoneapi/caddy-zoneapi/"
	allowed := map[string][]string{
		"zonemodel":         {},
		"zonestore":         {"zonemodel"},
		"dnsupdate":         {"zonemodel", "internal/connpool"},
		"rndc":              {"internal/connpool"},
		"zoneservice":       {"zonestore", "zonemodel", "rndc", "internal/connpool"},
		"internal/connpool": {},
	}
	for pkg, ok := range allowed {
		// Every package pkg depends on, with its own imports.
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			dep := f[0]
			switch {
			case strings.HasPrefix(dep, "github.com/caddyserver/"):
				t.Errorf("%s depends on %s", pkg, dep)
			case strings.HasPrefix(dep, mod):
				d := strings.TrimPrefix(dep, mod)
				if d != pkg && !contains(ok, d) {
					t.Errorf("%s depends on %s, which it must not", pkg, d)
				}
				if contains(f[1:], "net/http") {
					t.Errorf("%s imports net/http", d)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
