package zonestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestIdempotencyKeysDurable: a record survives a restart (a new Store
// on the directory), a replaced record replaces, an expired one is
// gone, a torn last line loses nothing written after it, and the bound
// per principal refuses a new key but not a replacement.
func TestIdempotencyKeysDurable(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := s.IdempotencyKeys()
	now := time.Now()
	k.now = func() time.Time { return now }
	if err := k.Put(IdempotencyRecord{Key: "a", Principal: "p", Request: "fp1", Time: now}); err != nil {
		t.Fatal(err)
	}
	if err := k.Put(IdempotencyRecord{Key: "a", Principal: "p", Request: "fp1", Time: now, Status: 201, Body: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	if err := k.Put(IdempotencyRecord{Key: "old", Principal: "p", Request: "fp0", Time: now.Add(-IdempotencyTTL - time.Second)}); err != nil {
		t.Fatal(err)
	}
	// A crash in the middle of an append.
	f, _ := os.OpenFile(filepath.Join(dir, ".zoneapi", "idempotency.log"), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"key":"torn","who":"p"`)
	f.Close()
	if err := k.Put(IdempotencyRecord{Key: "b", Principal: "p", Request: "fp2", Time: now}); err != nil {
		t.Fatal(err)
	}

	s2, _ := Open(dir) // a restart
	k2 := s2.IdempotencyKeys()
	r, ok, err := k2.Get("a")
	if err != nil || !ok || r.Status != 201 || string(r.Body) != `{"ok":true}` || r.Request != "fp1" {
		t.Fatalf("after a restart: %+v %v %v", r, ok, err)
	}
	if _, ok, _ := k2.Get("b"); !ok {
		t.Error("the record after the torn line is lost")
	}
	for _, gone := range []string{"old", "torn"} {
		if _, ok, _ := k2.Get(gone); ok {
			t.Errorf("%s is remembered", gone)
		}
	}
	// The bound per principal.
	k2.now = func() time.Time { return now }
	for i := len(k2.m); i < MaxIdempotencyKeysPer; i++ {
		if err := k2.Put(IdempotencyRecord{Key: fmt.Sprint("k", i), Principal: "p", Time: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := k2.Put(IdempotencyRecord{Key: "one-too-many", Principal: "p", Time: now}); !errors.Is(err, ErrKeysFull) {
		t.Errorf("past the bound: %v, want ErrKeysFull", err)
	}
	if err := k2.Put(IdempotencyRecord{Key: "a", Principal: "p", Request: "fp1", Time: now, Status: 409}); err != nil {
		t.Errorf("replacing past the bound: %v", err)
	}
	if err := k2.Put(IdempotencyRecord{Key: "other", Principal: "q", Time: now}); err != nil {
		t.Errorf("another principal: %v", err)
	}
	// A day later every key has expired and there is room again.
	k2.now = func() time.Time { return now.Add(IdempotencyTTL) }
	if err := k2.Put(IdempotencyRecord{Key: "next-day", Principal: "p", Time: now.Add(IdempotencyTTL)}); err != nil {
		t.Errorf("after expiry: %v", err)
	}
}
