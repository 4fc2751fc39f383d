package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mountZoneDir mounts a small tmpfs on named's zone directory (before
// caddy starts), or skips the test where mounting is not allowed.
func mountZoneDir(t *testing.T, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// The tmpfs, and a read-only bind mount over it a failed test left.
		for exec.Command("mountpoint", "-q", dir).Run() == nil {
			if exec.Command("umount", "-l", dir).Run() != nil {
				break
			}
		}
	})
}

// TestDiskFullAndReadOnly: with the zone directory full, a create answers
// 507 and changes nothing; read-only, 500 and nothing; once space is back
// or the directory writable, the same create succeeds. The index never
// keeps a partial line.
func TestDiskFullAndReadOnly(t *testing.T) {
	// The tmpfs goes in before caddy starts: caddy opens the zone
	// directory's state (<zone_dir>/.zoneapi) at start, for the change
	// history's catch-up, and a mount over it afterwards would hide that
	// state (as TestCompactionNoSpace found).
	ns := startNamed(t)
	mountZoneDir(t, ns.ZoneDir, "256k")
	r := newCrashRigOn(t, ns, "5s", caddyOpts{})
	r.must("POST", "/api/v1/zones", zoneBody("before.test"), 201)

	filler := filepath.Join(r.ns.ZoneDir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	st, m, raw := r.try("POST", "/api/v1/zones", zoneBody("full.test"))
	if st != 507 || m["error"] != "Insufficient Storage" {
		t.Fatalf("create on a full disk: %d %s, want 507", st, raw)
	}
	st, _, raw = r.try("POST", "/api/v1/zones", zoneBody("full.test"))
	if st != 507 {
		t.Fatalf("again: %d %s", st, raw)
	}
	listed, served, files := r.state([]string{"full.test"})
	if listed["full.test"] || served["full.test"] || files["full.test"] {
		t.Fatalf("a refused create left something: listed %v served %v file %v", listed, served, files)
	}
	os.Remove(filler)
	r.must("POST", "/api/v1/zones", zoneBody("full.test"), 201)

	// Read-only: a read-only bind mount over the directory (files
	// already open stay writable, as they would after a remount).
	for _, args := range [][]string{{"--bind", r.ns.ZoneDir, r.ns.ZoneDir}, {"-o", "remount,bind,ro", r.ns.ZoneDir}} {
		if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
			t.Fatalf("mount %v: %v %s", args, err, out)
		}
	}
	st, _, raw = r.try("POST", "/api/v1/zones", zoneBody("ro.test"))
	if st != 500 || !strings.Contains(raw, "read-only") {
		t.Errorf("create on a read-only zone dir: %d %s, want 500 naming the cause", st, raw)
	}
	st, _, raw = r.try("DELETE", "/api/v1/zones/before.test", nil)
	if st != 500 {
		t.Errorf("delete on a read-only zone dir: %d %s, want 500", st, raw)
	}
	if out, err := exec.Command("umount", r.ns.ZoneDir).CombinedOutput(); err != nil {
		t.Fatalf("umount the read-only bind: %v %s", err, out)
	}
	r.must("POST", "/api/v1/zones", zoneBody("ro.test"), 201)
	r.must("DELETE", "/api/v1/zones/before.test", nil, 200)
	r.settle()
	for _, n := range []string{"before.test", "full.test", "ro.test"} {
		listed, served, files := r.state([]string{n})
		if listed[n] != served[n] || served[n] != files[n] {
			t.Errorf("%s: listed %v served %v file %v", n, listed[n], served[n], files[n])
		}
	}
	idx, _ := os.ReadFile(filepath.Join(r.ns.ZoneDir, ".zoneapi", "index.log"))
	if len(idx) > 0 && idx[len(idx)-1] != '\n' {
		t.Errorf("the index ends with a partial line")
	}
}
