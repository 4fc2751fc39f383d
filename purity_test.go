package zoneapi

import (
	"os/exec"
	"strings"
	"testing"
)

// TestZoneModelHasNoIO keeps package zonemodel pure: its non-test files
// import nothing that reads or writes files, runs processes or talks to the
// network (it may parse addresses with net.ParseIP). The zone directory's
// I/O belongs to zonestore.
func TestZoneModelHasNoIO(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./zonemodel").Output()
	if err != nil {
		t.Fatalf("go list zonemodel: %v", err)
	}
	forbidden := []string{"os", "os/exec", "io/fs", "io/ioutil", "path/filepath", "syscall",
		"golang.org/x/sys/unix", "net/http", "github.com/zoneapi/caddy-zoneapi/zonestore"}
	for _, imp := range strings.Fields(string(out)) {
		if contains(forbidden, imp) {
			t.Errorf("zonemodel imports %s: the zone model has no I/O (files go through zonestore)", imp)
		}
	}
}
