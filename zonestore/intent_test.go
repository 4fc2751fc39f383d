package zonestore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestTornCompleteLineIsDiscarded is defect 3 of issue 10: an append that
// hit ENOSPC after the JSON but before the newline was "completed" by the
// next write, so a zone that was never acknowledged was listed. The old
// index failed this test (ghost.example was listed after the next put).
func TestTornCompleteLineIsDiscarded(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Put(Entry{Name: "one.example", Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, ".zoneapi", "index.log")
	f, _ := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	// A whole JSON record without its newline.
	f.WriteString(`{"op":"put","name":"ghost.example","type":"primary","created":"2026-01-01T00:00:00Z"}`)
	f.Close()

	b, _ := Open(dir)
	if err := b.Put(Entry{Name: "two.example", Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	for i, s := range []*Store{a, b, mustOpen(t, dir)} {
		if _, ok, _ := s.Get("ghost.example"); ok {
			t.Errorf("store %d: the torn line became a zone", i)
		}
		if _, ok, _ := s.Get("two.example"); !ok {
			t.Errorf("store %d: the put after the torn line is lost", i)
		}
	}
	data, _ := os.ReadFile(logPath)
	if bytes.Contains(data, []byte("ghost")) {
		t.Errorf("the torn line is still in the log:\n%s", data)
	}
}

func mustOpen(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRepairIndex(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	if err := s.Put(Entry{Name: "one.example", Type: zonemodel.TypePrimary}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RepairIndex(); err != nil || n != 0 {
		t.Fatalf("RepairIndex on a clean log = %d, %v", n, err)
	}
	logPath := filepath.Join(dir, ".zoneapi", "index.log")
	f, _ := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"op":"del","name":"one.example"}`)
	f.Close()
	n, err := mustOpen(t, dir).RepairIndex()
	if err != nil || n != int64(len(`{"op":"del","name":"one.example"}`)) {
		t.Fatalf("RepairIndex = %d, %v", n, err)
	}
	if _, ok, _ := mustOpen(t, dir).Get("one.example"); !ok {
		t.Error("the torn del was applied")
	}
}

func TestIntents(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	now := time.Now()
	in := Intent{Op: IntentCreate, Name: "a.example", Type: zonemodel.TypePrimary, Fingerprint: "fp1",
		File: filepath.Join(dir, "a.example.zone"), Time: now, NotAfter: now.Add(time.Minute)}
	if err := s.Begin(in); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(in); err == nil {
		t.Error("a second intent for the same zone was accepted")
	}
	if err := s.Begin(Intent{Op: "rename", Name: "b.example"}); err == nil {
		t.Error("an unknown operation was accepted")
	}
	if err := s.Begin(Intent{Op: IntentDelete, Name: "b.example", Time: now}); err != nil {
		t.Fatal(err)
	}
	// Another process (another Store) sees both.
	o := mustOpen(t, dir)
	got, ok, err := o.PendingIntent("a.example")
	if err != nil || !ok || got.Fingerprint != "fp1" || got.File != in.File || !got.NotAfter.Equal(in.NotAfter) || got.Name != "a.example" {
		t.Fatalf("PendingIntent = %+v, %v, %v", got, ok, err)
	}
	all, _ := o.PendingIntents()
	if len(all) != 2 || all[0].Name != "a.example" || all[1].Name != "b.example" {
		t.Fatalf("PendingIntents = %+v", all)
	}
	// Pending intents are not zones.
	if _, _, total, _ := o.List("", "", 0); total != 0 {
		t.Errorf("list shows %d zones", total)
	}
	if err := s.Complete("a.example", &Entry{Name: "a.example", Type: zonemodel.TypePrimary, Fingerprint: "fp1"}, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete("b.example", nil, false); err != nil {
		t.Fatal(err)
	}
	for i, st := range []*Store{s, o, mustOpen(t, dir)} {
		if all, _ := st.PendingIntents(); len(all) != 0 {
			t.Errorf("store %d: pending after completion: %+v", i, all)
		}
		e, ok, _ := st.Get("a.example")
		if !ok || e.Fingerprint != "fp1" {
			t.Errorf("store %d: entry = %+v, %v", i, e, ok)
		}
	}
	// Compaction keeps entries, fingerprints and pending intents.
	if err := s.Begin(Intent{Op: IntentDelete, Name: "a.example", Time: now}); err != nil {
		t.Fatal(err)
	}
	s.idx.mu.Lock()
	err = s.idx.compact()
	s.idx.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, dir)
	if in, ok, _ := c.PendingIntent("a.example"); !ok || in.Op != IntentDelete {
		t.Errorf("after compaction: intent %+v, %v", in, ok)
	}
	if e, ok, _ := c.Get("a.example"); !ok || e.Fingerprint != "fp1" {
		t.Errorf("after compaction: entry %+v, %v", e, ok)
	}
	if err := c.Complete("a.example", nil, true); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("a.example"); ok {
		t.Error("delete completion left the entry")
	}
}

// TestCompleteCreateNotFsynced: a create's completion is appended and
// applied (this process and another see the zone, not the intent) without
// an fsync of its own, and what a power loss can leave of the log, the
// part fsynced before it, holds the create's intent with the type and
// fingerprint of its entry, to be settled from named as any pending
// create (zoneservice); the next fsynced write makes it durable.
func TestCompleteCreateNotFsynced(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	now := time.Now()
	if err := s.Begin(Intent{Op: IntentCreate, Name: "a.example", Type: zonemodel.TypePrimary, Fingerprint: "fp1", Time: now}); err != nil {
		t.Fatal(err)
	}
	durable := s.idx.off
	flushes := s.idx.flushes
	if err := s.CompleteCreate("a.example", &Entry{Name: "a.example", Type: zonemodel.TypePrimary, Fingerprint: "fp1", Created: now}); err != nil {
		t.Fatal(err)
	}
	if s.idx.flushes != flushes {
		t.Errorf("CompleteCreate fsynced the log (%d fsyncs, want 0)", s.idx.flushes-flushes)
	}
	for i, st := range []*Store{s, mustOpen(t, dir)} {
		if all, _ := st.PendingIntents(); len(all) != 0 {
			t.Errorf("store %d: pending after the completion: %+v", i, all)
		}
		if e, ok, _ := st.Get("a.example"); !ok || e.Fingerprint != "fp1" {
			t.Errorf("store %d: entry = %+v, %v", i, e, ok)
		}
	}

	// A power loss keeps the log as fsynced: the intent, pending.
	log, err := os.ReadFile(filepath.Join(dir, ".zoneapi", "index.log"))
	if err != nil {
		t.Fatal(err)
	}
	lost := t.TempDir()
	if err := os.MkdirAll(filepath.Join(lost, ".zoneapi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lost, ".zoneapi", "index.log"), log[:durable], 0o644); err != nil {
		t.Fatal(err)
	}
	in, ok, err := mustOpen(t, lost).PendingIntent("a.example")
	if err != nil || !ok || in.Op != IntentCreate || in.Type != zonemodel.TypePrimary || in.Fingerprint != "fp1" {
		t.Errorf("after a power loss: pending intent %+v, %v, %v; want the create's, with its type and fingerprint", in, ok, err)
	}

	// The next write that must be durable fsyncs the completion with it.
	if err := s.Begin(Intent{Op: IntentDelete, Name: "a.example", Time: now}); err != nil {
		t.Fatal(err)
	}
	if s.idx.flushes != flushes+1 || s.idx.unsynced {
		t.Errorf("the next intent: %d fsyncs, want 1", s.idx.flushes-flushes)
	}
}
