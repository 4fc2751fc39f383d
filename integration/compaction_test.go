package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// indexLines counts the lines of the zone index log.
func indexLines(t *testing.T, zoneDir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(zoneDir, ".zoneapi", "index.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// fillInodes creates empty files in dir until the file system has no
// inode left (ENOSPC), then removes keep of them, and returns the files
// still there.
func fillInodes(t *testing.T, dir string, keep int) []string {
	t.Helper()
	var made []string
	for i := 0; ; i++ {
		p := filepath.Join(dir, fmt.Sprintf("filler-%d", i))
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		made = append(made, p)
	}
	for range keep {
		os.Remove(made[len(made)-1])
		made = made[:len(made)-1]
	}
	return made
}

// TestCompactionNoSpace: the index log is due for compaction at the
// create's (or the delete's) own append, and the zone directory has no
// room for the compacted copy (a tmpfs with no inode left: the copy's
// creation fails with ENOSPC, while appends to the log still fit). The
// append is durable and applied, so the operation stands: 201 and the zone
// listed, served and with its file; 200 and the zone gone. (Before: 507
// "nothing was changed", and the create undone in named but kept in the
// index; the delete done anyway.)
func TestCompactionNoSpace(t *testing.T) {
	// lines brings the index log to exactly want lines with creates and
	// deletes (3 lines each) and refused creates (2 lines: the intent and
	// its end).
	lines := func(r *crashRig, want int) {
		t.Helper()
		for i := 0; ; i++ {
			n := indexLines(t, r.ns.ZoneDir)
			switch {
			case n == want:
				return
			case n > want:
				t.Fatalf("index log at %d lines, past %d", n, want)
			case want-n == 2 || want-n == 4:
				body := zoneBody(fmt.Sprintf("refused%d.test", i))
				body["zoneConfig"].(map[string]any)["dnssecPolicy"] = "no-such-policy"
				r.must("POST", "/api/v1/zones", body, 400, 409, 500)
			default:
				z := fmt.Sprintf("pad%d.test", i)
				r.must("POST", "/api/v1/zones", zoneBody(z), 201)
				if want-indexLines(t, r.ns.ZoneDir) >= 3 {
					r.must("DELETE", "/api/v1/zones/"+z, nil, 200)
				}
			}
		}
	}
	// rig starts named, mounts a small tmpfs on its zone directory, then
	// starts caddy. The tmpfs goes in before caddy starts: caddy opens
	// the zone directory's state (<zone_dir>/.zoneapi: the index log, the
	// locks, the change history) at start, for the history's catch-up,
	// and a file system mounted over the directory afterwards would hide
	// that state from it (503 "open …/.zoneapi/zones.lock: no such file
	// or directory" on the first create).
	rig := func(t *testing.T) *crashRig {
		ns := startNamed(t)
		out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m,nr_inodes=400", "tmpfs", ns.ZoneDir).CombinedOutput()
		if err != nil {
			t.Skipf("cannot mount a tmpfs here (%v: %s)", err, strings.TrimSpace(string(out)))
		}
		t.Cleanup(func() { _ = exec.Command("umount", "-l", ns.ZoneDir).Run() })
		return newCrashRigOn(t, ns, "5s", caddyOpts{})
	}

	t.Run("create", func(t *testing.T) {
		r := rig(t)
		// The create appends its intent (1 line), then the entry and the
		// end of the intent (2 lines): compaction is due at the second
		// append when the log has 254 lines before (more than 256 and
		// more than twice the live set after).
		lines(r, 254)
		fill := fillInodes(t, r.ns.ZoneDir, 1) // one inode: the zone file's
		const zone = "compact.test"
		st, _, raw := r.try("POST", "/api/v1/zones", zoneBody(zone))
		for _, f := range fill {
			os.Remove(f)
		}
		if st != 201 {
			t.Errorf("create whose append was durable but whose compaction failed: %d %s, want 201", st, raw)
		}
		listed, served, files := r.state([]string{zone})
		if !listed[zone] || !served[zone] || !files[zone] {
			t.Errorf("after the create: listed %v, served %v, file %v; want all true", listed[zone], served[zone], files[zone])
		}
		if m := r.must("POST", "/api/v1/zones", zoneBody(zone), 409); m["sameConfig"] != true { // a retry finds it
			t.Errorf("a retry of the create: %v, want sameConfig true", m)
		}
		r.must("DELETE", "/api/v1/zones/"+zone, nil, 200)
	})

	t.Run("delete", func(t *testing.T) {
		r := rig(t)
		const zone = "compactdel.test"
		r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
		// The delete's intent is the append at which compaction is due.
		lines(r, 256)
		fill := fillInodes(t, r.ns.ZoneDir, 0)
		st, _, raw := r.try("DELETE", "/api/v1/zones/"+zone, nil)
		for _, f := range fill {
			os.Remove(f)
		}
		if st != 200 {
			t.Errorf("delete whose append was durable but whose compaction failed: %d %s, want 200", st, raw)
		}
		r.reconcile()
		listed, served, files := r.state([]string{zone})
		if st != 200 && (!listed[zone] || !served[zone]) {
			t.Errorf("the delete was answered %d but the zone is gone (listed %v, served %v, file %v)", st, listed[zone], served[zone], files[zone])
		}
		if st == 200 && (listed[zone] || served[zone] || files[zone]) {
			t.Errorf("after the delete: listed %v, served %v, file %v; want all false", listed[zone], served[zone], files[zone])
		}
	})
}
