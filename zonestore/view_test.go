package zonestore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenViewKeepsViewsApart: the same zone name in two views and in the
// zone directory itself gets three files, three index entries and three
// locks that do not block each other; the root store lists no view's file;
// a bad view name opens nothing.
func TestOpenViewKeepsViewsApart(t *testing.T) {
	dir := t.TempDir()
	root, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]*Store{"": root}
	for _, v := range []string{"internal", "external"} {
		if stores[v], err = OpenView(dir, v); err != nil {
			t.Fatal(err)
		}
	}
	paths := map[string]bool{}
	for v, s := range stores {
		p, err := s.CreateFile("ex.test", []byte("; "+v+"\n"))
		if err != nil {
			t.Fatalf("view %q: %v", v, err)
		}
		paths[p] = true
		if err := s.Put(Entry{Name: "ex.test", Type: "primary"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) != 3 || !paths[filepath.Join(dir, "views", "internal", "ex.test.zone")] {
		t.Errorf("zone files %v", paths)
	}
	// The locks of the three are independent.
	ctx := context.Background()
	var unlocks []func()
	for v, s := range stores {
		u, err := s.Lock(ctx, "ex.test")
		if err != nil {
			t.Fatalf("lock in %q: %v", v, err)
		}
		unlocks = append(unlocks, u)
	}
	for _, u := range unlocks {
		u()
	}
	files, err := root.ZoneFiles()
	if err != nil || len(files) != 1 {
		t.Errorf("root ZoneFiles = %v, %v; want only its own ex.test", files, err)
	}
	if err := stores["internal"].Remove("ex.test"); err != nil {
		t.Fatal(err)
	}
	for v, s := range stores {
		_, ok, _ := s.Get("ex.test")
		if ok == (v == "internal") {
			t.Errorf("view %q: indexed %v after internal's removal", v, ok)
		}
	}
	for _, bad := range []string{"", "..", "a/b", ".", "x y"} {
		if _, err := OpenView(dir, bad); err == nil {
			t.Errorf("OpenView(%q) opened", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "views", "x y")); err == nil {
		t.Error("a directory was made for a bad view name")
	}
}
