package zonestore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateFileIn(t *testing.T) {
	_, dir := openTemp(t)
	if err := CreateFileIn(dir, "cat.example.catalog.db", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cat.example.catalog.db")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stat %s: %v", path, err)
	}
	if err := CreateFileIn(dir, "cat.example.catalog.db", []byte("two\n")); !errors.Is(err, ErrExists) {
		t.Fatalf("second CreateFileIn: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("file was overwritten: %q", b)
	}
	for _, bad := range []string{"", "../x", "sub/x", ".hidden", "/abs"} {
		if err := CreateFileIn(dir, bad, nil); err == nil {
			t.Errorf("CreateFileIn accepted %q", bad)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestHasFileAndDiscardFile(t *testing.T) {
	s, dir := openTemp(t)
	if ok, err := s.HasFile("example.com"); ok || err != nil {
		t.Fatalf("HasFile before create = %v, %v", ok, err)
	}
	if _, err := s.CreateFile("example.com", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	jnl := filepath.Join(dir, "example.com.zone.jnl")
	keep := filepath.Join(dir, "example.com.zone.signed")
	for _, p := range []string{jnl, keep} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.HasFile("example.com"); !ok || err != nil {
		t.Fatalf("HasFile after create = %v, %v", ok, err)
	}
	if err := s.DiscardFile("example.com"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.HasFile("example.com"); ok || err != nil {
		t.Errorf("HasFile after discard = %v, %v", ok, err)
	}
	if _, err := os.Stat(jnl); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("DiscardFile removed more than the file and its journal: %v", err)
	}
	if err := s.DiscardFile("example.com"); err != nil {
		t.Errorf("discarding a missing file: %v", err)
	}
	for _, bad := range []string{"../evil", "Example.com", "*"} {
		if _, err := s.HasFile(bad); err == nil {
			t.Errorf("HasFile accepted %q", bad)
		}
		if err := s.DiscardFile(bad); err == nil {
			t.Errorf("DiscardFile accepted %q", bad)
		}
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	if err := CheckDir(dir); err != nil {
		t.Errorf("CheckDir(%s) = %v", dir, err)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(file); err == nil {
		t.Error("CheckDir of a file succeeded")
	}
	if err := CheckDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("CheckDir of a missing directory succeeded")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir(ro); err == nil {
			t.Error("CheckDir of a read-only directory succeeded")
		}
	}
}

// TestMoveAsideLongNames: the file and the journal of a zone whose name
// leaves no room for the stamp (227 and 246 characters) are both moved
// aside, nothing of the zone is left in the zone directory, and a
// shorter name keeps <file>.<stamp>. Before, the journal of the 227-
// character name could not be renamed (a name of 256 bytes) after its
// zone file was: the journal stayed behind, for named to read with the
// next zone of that name; the 246-character name's file was never
// moved (a create of that name then failed for as long as it was there).
func TestMoveAsideLongNames(t *testing.T) {
	label := strings.Repeat("a", 56)
	long := strings.Join([]string{label, label, label, label}, ".")
	longer := strings.Join([]string{strings.Repeat("b", 62), strings.Repeat("c", 62), strings.Repeat("d", 62), strings.Repeat("e", 57)}, ".")
	for _, zone := range []string{"short.example", long, longer} {
		s, dir := openTemp(t)
		for _, suf := range []string{".zone", ".zone.jnl"} {
			if err := os.WriteFile(filepath.Join(dir, FileBase(zone)+suf), []byte(suf), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		moved, err := s.MoveAside(zone)
		if err != nil {
			t.Errorf("%d characters: %v", len(zone), err)
		}
		for _, suf := range []string{".zone", ".zone.jnl"} {
			if ok, _ := s.Exists(filepath.Join(dir, FileBase(zone)+suf)); ok {
				t.Errorf("%d characters: %s left in the zone directory", len(zone), suf)
			}
		}
		if b, err := os.ReadFile(moved); err != nil || string(b) != ".zone" {
			t.Errorf("%d characters: the zone file moved to %q: %q %v", len(zone), moved, b, err)
		}
		if zone == "short.example" && !strings.HasPrefix(filepath.Base(moved), "short.example.zone.") {
			t.Errorf("moved to %s, want short.example.zone.<stamp>", moved)
		}
	}
}
