package zoneservice

import (
	"errors"
	"testing"
)

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

// TestBeginKeyed: a key's first use records it with the request's
// fingerprint; a retry with the same body while it runs is refused
// (ErrKeyBusy), after it ran without a final answer runs again, after its
// final answer is given that answer to replay; the key with another body
// is ErrKeyReused; another principal's same key is another key.
func TestBeginKeyed(t *testing.T) {
	r := newOpsRig(t)
	s := r.svc
	k, err := s.BeginKeyed("alice", "key-1", "fp1")
	if err != nil || k.Replay != nil || k.Fingerprint == "fp1" || !SameBody(k.Fingerprint, "fp1") {
		t.Fatalf("first use: %+v, %v", k, err)
	}
	if _, err := s.BeginKeyed("alice", "key-1", "fp1"); !errors.Is(err, ErrKeyBusy) {
		t.Errorf("while running: %v, want ErrKeyBusy", err)
	}
	k.End()
	k2, err := s.BeginKeyed("alice", "key-1", "fp1")
	if err != nil || k2.Replay != nil || k2.Fingerprint != k.Fingerprint {
		t.Fatalf("retry without a final answer: %+v, %v", k2, err)
	}
	if err := k2.Finish(Answer{Status: 201, Header: map[string]string{"Location": "/z"}, Body: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	k2.End()
	k3, err := s.BeginKeyed("alice", "key-1", "fp1")
	if err != nil || k3.Replay == nil || k3.Replay.Status != 201 || k3.Replay.Header["Location"] != "/z" || string(k3.Replay.Body) != `{"ok":true}` {
		t.Fatalf("retry after the answer: %+v, %v", k3, err)
	}
	k3.End()
	if _, err := s.BeginKeyed("alice", "key-1", "fp2"); !errors.Is(err, ErrKeyReused) {
		t.Errorf("another body: %v, want ErrKeyReused", err)
	}
	k4, err := s.BeginKeyed("bob", "key-1", "fp2")
	if err != nil || k4.Replay != nil {
		t.Fatalf("another principal's key: %+v, %v", k4, err)
	}
	k4.End()
}
