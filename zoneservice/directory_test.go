package zoneservice

import "testing"

// TestDirectoryKeys: an Idempotency-Key is answered by one request of the
// directory at a time; once ended it may be begun again, and another
// key meanwhile is free.
func TestDirectoryKeys(t *testing.T) {
	d := NewDirectory(t.TempDir(), nil)
	end, ok := d.BeginKey("k1")
	if !ok {
		t.Fatal("the first request of a key was refused")
	}
	if _, ok := d.BeginKey("k1"); ok {
		t.Error("a second request of a key in flight was let through")
	}
	end2, ok := d.BeginKey("k2")
	if !ok {
		t.Error("another key was refused")
	}
	end()
	end2()
	if _, ok := d.BeginKey("k1"); !ok {
		t.Error("a key whose request ended was refused")
	}
}
