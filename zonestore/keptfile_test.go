package zonestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kept file is read back as written, replaced whole, refused over its
// bound, and its name cannot leave the meta directory.
func TestKeptFile(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ReadKeptFile("inventory", 100); ok || err != nil {
		t.Fatalf("none yet: ok %v, %v", ok, err)
	}
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := s.ReplaceKeptFile("inventory", []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.ReadKeptFile("inventory", 100)
		if !ok || err != nil || string(got) != data {
			t.Fatalf("read %q, %v, %v; want %q", got, ok, err, data)
		}
	}
	if _, _, err := s.ReadKeptFile("inventory", 5); err == nil || !strings.Contains(err.Error(), "over 5 bytes") {
		t.Errorf("over the bound: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(s.Dir(), metaDir))
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("left %s", e.Name())
		}
	}
	for _, bad := range []string{"../x", "", "A", "x/y", ".hidden"} {
		if err := s.ReplaceKeptFile(bad, nil); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}
