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
