package zonestore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestIdempotencyKeysDurable: a record survives a restart (a new Store
// on the directory), a replaced record replaces, an expired one is
// gone, and a torn last line loses nothing written after it.
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
	// A day later the records have expired.
	k2.now = func() time.Time { return now.Add(IdempotencyTTL) }
	if _, ok, _ := k2.Get("a"); ok {
		t.Error("a is remembered after a day")
	}
}

// createAnswer is the body of a create's 201 as the API records it
// (about 400 bytes).
func createAnswer(zone string) []byte {
	return fmt.Appendf(nil, `{"success":true,"message":"Zone %s created successfully","details":"zone '%s' added to view '_default'","zone":{"name":"%s","zoneType":"primary","serial":2026112501,"filePath":"/var/cache/bind/%s.zone"}}`, zone, zone, zone, zone)
}

// putKeyed records a keyed create as the API does: the key at its first
// use, then its answer.
func putKeyed(t testing.TB, k *IdempotencyKeys, who string, i int, at time.Time) {
	t.Helper()
	zone := fmt.Sprintf("z%d.example.test", i)
	r := IdempotencyRecord{Key: fmt.Sprintf("%s-%d", who, i), Principal: who, Request: fmt.Sprintf("fp%d", i), Time: at}
	if err := k.Put(r); err != nil {
		t.Fatalf("key %d: %v", i, err)
	}
	r.Status, r.Header, r.Body = 201, map[string]string{"Location": "/api/v1/zones/" + zone}, createAnswer(zone)
	if err := k.Put(r); err != nil {
		t.Fatalf("the answer of key %d: %v", i, err)
	}
}

// TestIdempotencyKeysBulkNotRefused: one identity that creates 10,000
// zones in a day, each with a key, has every key remembered and none
// refused (before: the 2,001st key was ErrKeysFull, answered 429 for 24
// h), and every one is still there after a restart.
func TestIdempotencyKeysBulkNotRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := s.IdempotencyKeys()
	k.sync = func(*os.File) error { return nil } // 20,000 fsyncs test nothing here
	now := time.Now()
	const n = 10000
	for i := range n {
		putKeyed(t, k, "static:provisioner", i, now.Add(time.Duration(i)*(IdempotencyTTL/2)/n))
	}
	s2, _ := Open(dir) // a restart
	k2 := s2.IdempotencyKeys()
	for i := range n {
		r, ok, err := k2.Get(fmt.Sprintf("static:provisioner-%d", i))
		if err != nil || !ok || r.Status != 201 {
			t.Fatalf("key %d after a restart: %+v %v %v", i, r, ok, err)
		}
	}
	fi, _ := os.Stat(k.path)
	t.Logf("%d keys: log %d bytes, live records %d bytes", n, fi.Size(), k2.live)
}

// TestIdempotencyKeysBoundedBySizeAndAge: past the size bound the oldest
// records are dropped (never a new key refused) and the log on disk is
// rewritten within twice the bound, across a restart too; records older
// than IdempotencyTTL are dropped and the log shrinks to the live ones.
func TestIdempotencyKeysBoundedBySizeAndAge(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	k := s.IdempotencyKeys()
	k.sync = func(*os.File) error { return nil }
	const max = 256 << 10
	k.max = max
	now := time.Now()
	k.now = func() time.Time { return now }
	const n = 3000 // about 2 MiB of records, eight times the bound
	for i := range n {
		putKeyed(t, k, "jwt:flood", i, now.Add(time.Duration(i-n)*time.Second))
		fi, err := os.Stat(k.path)
		if err != nil {
			t.Fatal(err)
		}
		if k.live > max || fi.Size() > 2*max {
			t.Fatalf("after key %d: live %d bytes, log %d bytes; bound %d", i, k.live, fi.Size(), max)
		}
	}
	if _, ok, _ := k.Get("jwt:flood-0"); ok {
		t.Error("the oldest key is still remembered past the size bound")
	}
	if _, ok, _ := k.Get(fmt.Sprint("jwt:flood-", n-1)); !ok {
		t.Error("the newest key was dropped")
	}
	kept := len(k.m)
	if kept < n/20 {
		t.Errorf("only %d keys kept within %d bytes", kept, max)
	}

	// A restart reads the same records back, within the bound.
	s2, _ := Open(dir)
	k2 := s2.IdempotencyKeys()
	k2.now, k2.max, k2.sync = k.now, max, k.sync
	if _, _, err := k2.Get("x"); err != nil {
		t.Fatal(err)
	}
	if len(k2.m) != kept || k2.live > max {
		t.Errorf("after a restart: %d keys, %d bytes; want %d keys within %d bytes", len(k2.m), k2.live, kept, max)
	}

	// A day after the newest key, everything has expired: the next Put
	// drops the rest, and the log shrinks once the dead lines outgrow the
	// live ones.
	later := now.Add(IdempotencyTTL)
	k2.now = func() time.Time { return later }
	for i := range 2000 {
		putKeyed(t, k2, "static:next-day", i, later)
	}
	for i := n - kept; i < n; i++ {
		if _, ok, _ := k2.Get(fmt.Sprint("jwt:flood-", i)); ok {
			t.Fatalf("key %d is remembered a day later", i)
		}
	}
	fi, _ := os.Stat(k2.path)
	if fi.Size() > 2*k2.live+minIdempotencyCompact {
		t.Errorf("a day later: log %d bytes for %d bytes of live records", fi.Size(), k2.live)
	}
}

// TestIdempotencyKeysSharedDirectory: two Stores on one directory (two
// instances, or a Store opened again) see each other's records at once,
// also after one of them rewrote the log (before: a Store read the log
// once, so a retry that reached the other instance was not recognised
// by its key until that instance restarted).
func TestIdempotencyKeysSharedDirectory(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	ka, kb := a.IdempotencyKeys(), b.IdempotencyKeys()
	now := time.Now()
	putKeyed(t, ka, "p", 1, now)
	if _, ok, err := kb.Get("p-0"); ok || err != nil { // b reads the log now
		t.Fatalf("p-0: %v %v", ok, err)
	}
	putKeyed(t, ka, "p", 2, now)
	if r, ok, err := kb.Get("p-2"); !ok || err != nil || r.Status != 201 {
		t.Fatalf("a's record read by b: %+v %v %v", r, ok, err)
	}
	// b rewrites the log (dropping for size); a reads the new file.
	kb.max = 1
	putKeyed(t, kb, "q", 3, now.Add(time.Second))
	if _, ok, _ := ka.Get("p-1"); ok {
		t.Error("a still has a record b dropped")
	}
	if _, ok, _ := ka.Get("q-3"); !ok {
		t.Error("a does not see b's record after b rewrote the log")
	}
}

// TestIdempotencyKeysReadWhileReplaced: a log replaced (another Store's
// compaction renames a new file over it) between a Get's stat of the
// path and its open is read whole from the file opened. Before, the
// records were dropped and none read: a key used by a first request was
// not found (a retry with another body was run instead of 422, and its
// record replaced the key's), and a record appended just before the
// replacement was not seen.
func TestIdempotencyKeysReadWhileReplaced(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	ka, kb := a.IdempotencyKeys(), b.IdempotencyKeys()
	now := time.Now()
	putKeyed(t, ka, "p", 1, now)
	path := filepath.Join(dir, ".zoneapi", "idempotency.log")
	// replace rewrites the log as a compaction does (a new file with the
	// same records, renamed over it), once, as b is about to open it.
	replace := false
	kb.open = func(name string) (*os.File, error) {
		if replace {
			replace = false
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := replaceFile(path, data, func() {}); err != nil {
				t.Fatal(err)
			}
		}
		return os.Open(name)
	}

	replace = true // b's first read
	if r, ok, err := kb.Get("p-1"); !ok || err != nil || r.Request != "fp1" {
		t.Fatalf("first read of a log replaced meanwhile: %+v %v %v", r, ok, err)
	}
	putKeyed(t, ka, "p", 2, now) // appended, then the log replaced
	replace = true
	if r, ok, err := kb.Get("p-2"); !ok || err != nil || r.Status != 201 {
		t.Fatalf("a record appended before the log was replaced: %+v %v %v", r, ok, err)
	}
	if _, ok, _ := kb.Get("p-1"); !ok {
		t.Error("p-1 lost after the log was replaced")
	}
}
