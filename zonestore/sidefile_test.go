package zonestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestSideFiles: a zone's side file is read back as written, replaced
// whole, listed, removed; a name that is not a zone's or a kind not known
// is refused.
func TestSideFiles(t *testing.T) {
	s, dir := openTemp(t)
	if _, ok, err := s.ReadSideFile("example.com", SideKindPowerDNS); ok || err != nil {
		t.Fatalf("no side file: ok %v, err %v", ok, err)
	}
	for _, data := range []string{`{"a":1}`, `{"b":2}`} {
		if err := s.ReplaceSideFile("example.com", SideKindPowerDNS, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.ReadSideFile("example.com", SideKindPowerDNS)
		if err != nil || !ok || string(got) != data {
			t.Fatalf("read %q %v %v, want %q", got, ok, err, data)
		}
	}
	if p := s.SideFilePath("example.com", SideKindPowerDNS); p != filepath.Join(dir, "example.com.pdns.json") {
		t.Errorf("SideFilePath = %s", p)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != ".zoneapi" && e.Name() != "example.com.pdns.json" {
			t.Errorf("left in the directory: %s", e.Name())
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "example.com.zone"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	zones, err := s.SideFileZones(SideKindPowerDNS)
	if err != nil || len(zones) != 1 || !zones["example.com"] {
		t.Errorf("SideFileZones = %v, %v", zones, err)
	}
	if err := s.RemoveSideFile("example.com", SideKindPowerDNS); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ReadSideFile("example.com", SideKindPowerDNS); ok {
		t.Error("side file still there after RemoveSideFile")
	}
	if err := s.RemoveSideFile("example.com", SideKindPowerDNS); err != nil {
		t.Errorf("removing no side file: %v", err)
	}
	if err := s.ReplaceSideFile("../x", SideKindPowerDNS, nil); err == nil {
		t.Error("ReplaceSideFile took ../x")
	}
	if err := s.ReplaceSideFile("example.com", "zone", nil); err == nil {
		t.Error("ReplaceSideFile took kind zone")
	}
	if err := os.Symlink("/etc/passwd", s.SideFilePath("link.test", SideKindPowerDNS)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ReadSideFile("link.test", SideKindPowerDNS); err == nil {
		t.Error("ReadSideFile followed a symlink")
	}
}

// TestSideFileLockAcrossStores: a side file's lock excludes another Store
// on the same directory, and is apart from the zone's lock.
func TestSideFileLockAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir)
	b, _ := Open(dir)
	unlock, err := a.LockSideFile(context.Background(), "example.com", SideKindPowerDNS)
	if err != nil {
		t.Fatal(err)
	}
	zoneUnlock, err := b.Lock(context.Background(), "example.com")
	if err != nil {
		t.Fatalf("the zone's lock waited for the side file's: %v", err)
	}
	zoneUnlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.LockSideFile(ctx, "example.com", SideKindPowerDNS); err == nil {
		t.Fatal("a second lock of the side file was granted while held")
	}
	unlock()
	u2, err := b.LockSideFile(context.Background(), "example.com", SideKindPowerDNS)
	if err != nil {
		t.Fatal(err)
	}
	u2()
}

// TestSideFileStamp: a read's stamp matches a later stat of the same
// version once its times are settled, never a fresh read's, and never a
// version written since, by ReplaceSideFile (another Store over the
// directory) or in place with the same size.
func TestSideFileStamp(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.StatSideFile("example.com", SideKindPowerDNS); ok || err != nil {
		t.Fatalf("stat of no side file: ok %v, %v", ok, err)
	}
	if err := s.ReplaceSideFile("example.com", SideKindPowerDNS, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	stamped := func() SideFileStamp {
		t.Helper()
		_, st, ok, err := s.ReadSideFileStamped("example.com", SideKindPowerDNS)
		if !ok || err != nil {
			t.Fatalf("read: ok %v, %v", ok, err)
		}
		return st
	}
	now := func() SideFileStamp {
		t.Helper()
		st, ok, err := s.StatSideFile("example.com", SideKindPowerDNS)
		if !ok || err != nil {
			t.Fatalf("stat: ok %v, %v", ok, err)
		}
		return st
	}
	if st := stamped(); st.Matches(now()) {
		t.Error("a read of a file just written matches: its times cannot tell it from the next version")
	}
	settled := func() SideFileStamp {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if st := stamped(); st.Matches(now()) {
				return st
			}
		}
		t.Fatal("no read matched after 10 s")
		return SideFileStamp{}
	}
	st := settled()
	if err := other.ReplaceSideFile("example.com", SideKindPowerDNS, []byte(`{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	if st.Matches(now()) {
		t.Error("a read matches the version another Store wrote since")
	}
	st = settled()
	if err := os.WriteFile(s.SideFilePath("example.com", SideKindPowerDNS), []byte(`{"a":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if st.Matches(now()) {
		t.Error("a read matches the file written in place since")
	}
	st = settled()
	if err := other.RemoveSideFile("example.com", SideKindPowerDNS); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.StatSideFile("example.com", SideKindPowerDNS); ok || err != nil {
		t.Errorf("stat of a removed side file: ok %v, %v", ok, err)
	}
}

// TestSideFileWriteBounded: a side file of more than MaxSideFile bytes,
// which ReadSideFile would refuse to read back, is not written
// (ErrSideFileTooLarge) and the file before stays; one of MaxSideFile
// bytes is.
func TestSideFileWriteBounded(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.ReplaceSideFile("example.com", SideKindPowerDNS, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxSideFile+1)
	if err := s.ReplaceSideFile("example.com", SideKindPowerDNS, big); !errors.Is(err, zonemodel.ErrSideFileTooLarge) {
		t.Fatalf("a side file of %d bytes: %v, want ErrSideFileTooLarge", len(big), err)
	}
	if got, ok, err := s.ReadSideFile("example.com", SideKindPowerDNS); err != nil || !ok || string(got) != `{"a":1}` {
		t.Fatalf("after the refusal: %.20q %v %v", got, ok, err)
	}
	if err := s.ReplaceSideFile("example.com", SideKindPowerDNS, big[:MaxSideFile]); err != nil {
		t.Fatalf("a side file of MaxSideFile bytes: %v", err)
	}
	if got, ok, err := s.ReadSideFile("example.com", SideKindPowerDNS); err != nil || !ok || len(got) != MaxSideFile {
		t.Fatalf("read back %d bytes %v %v", len(got), ok, err)
	}
}
