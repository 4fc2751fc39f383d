package zonestore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileBaseSlash: a '/' in a label (RFC 2317 zones, which PowerDNS
// accepts and named serves) is written %2F, as named writes the zone's
// key files, so that the zone's files stay in the zone directory; names
// without it keep their file names. Before FileBase, FilePath of
// "0/25.2.0.192.in-addr.arpa" was <dir>/0/25.2.0.192.in-addr.arpa.zone,
// a file in a sub-directory.
func TestFileBaseSlash(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for zone, want := range map[string]string{
		"example.com":               "example.com.zone",
		"_tcp.x-y.example":          "_tcp.x-y.example.zone",
		"0/25.2.0.192.in-addr.arpa": "0%2F25.2.0.192.in-addr.arpa.zone",
		"foo/bar.example":           "foo%2Fbar.example.zone",
	} {
		if err := checkZone(zone); err != nil {
			t.Fatalf("checkZone(%q): %v", zone, err)
		}
		if got := s.FilePath(zone); got != filepath.Join(s.Dir(), want) {
			t.Errorf("FilePath(%q) = %q, want %q in %s", zone, got, want, s.Dir())
		}
	}
	if got, want := s.SideFilePath("foo/bar.example", SideKindPowerDNS), filepath.Join(s.Dir(), "foo%2Fbar.example."+SideKindPowerDNS+".json"); got != want {
		t.Errorf("SideFilePath = %q, want %q", got, want)
	}

	// The files named writes and this package writes for such a zone are
	// found again (ZoneFiles, SideFileZones) and removed with it.
	zone := "foo/bar.example"
	for _, f := range []string{"foo%2Fbar.example.zone", "foo%2Fbar.example.zone.jnl", "foo%2Fbar.example." + SideKindPowerDNS + ".json",
		"Kfoo%2Fbar.example.+013+11068.key", "Kfoo%2Fbar.example.+013+11068.private", "bar.example.zone"} {
		if err := os.WriteFile(filepath.Join(s.Dir(), f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zones, err := s.ZoneFiles()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sorted(zones), ",") != "bar.example,foo/bar.example" {
		t.Errorf("ZoneFiles = %q", zones)
	}
	side, err := s.SideFileZones(SideKindPowerDNS)
	if err != nil || !side[zone] || len(side) != 1 {
		t.Errorf("SideFileZones = %v, %v", side, err)
	}
	removed, err := s.RemoveZoneFiles(zone)
	if err != nil || len(removed) != 5 {
		t.Errorf("RemoveZoneFiles = %q, %v; want its 5 files", removed, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "bar.example.zone")); err != nil {
		t.Errorf("another zone's file went with it: %v", err)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// FuzzFileBase: for every name checkZone takes, FileBase is one path
// element that stays in the zone directory (no '/', not "." or "..", no
// NUL, not the meta directory nor another hidden file) and decodes back to
// the name (ZoneOfFileBase), so that two zones never share a file; a base
// that ZoneOfFileBase takes is the FileBase of the zone it gives.
func FuzzFileBase(f *testing.F) {
	for _, s := range []string{"example.com", "foo/bar.example", "0/25.2.0.192.in-addr.arpa", "a%2fb", "%2E", "a/", "/", "//", "a./b", "_x", "xn--bcher-kva.example", "a%b_c.example", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if zone, ok := ZoneOfFileBase(s); ok && FileBase(zone) != s {
			t.Fatalf("ZoneOfFileBase(%q) = %q, whose FileBase is %q", s, zone, FileBase(zone))
		}
		if checkZone(s) != nil {
			return
		}
		base := FileBase(s)
		for _, suf := range append(append([]string{}, zoneFileSuffixes...), "."+SideKindPowerDNS+".json") {
			name := base + suf
			if strings.ContainsAny(name, "/\x00") || name == "." || name == ".." || strings.HasPrefix(name, ".") {
				t.Fatalf("zone %q: file name %q is not one plain file name", s, name)
			}
			dir := "/zones"
			if p := filepath.Join(dir, name); filepath.Dir(p) != dir || filepath.Base(p) != name {
				t.Fatalf("zone %q: %q leaves %s", s, p, dir)
			}
		}
		back, ok := ZoneOfFileBase(base)
		if !ok || back != s {
			t.Fatalf("ZoneOfFileBase(FileBase(%q) = %q) = %q, %v", s, base, back, ok)
		}
		if strings.HasPrefix(keyFilePrefix(s), "K") && strings.ContainsAny(keyFilePrefix(s), "/*?[\\") {
			t.Fatalf("zone %q: key file prefix %q", s, keyFilePrefix(s))
		}
	})
}
