package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// zoneLoaded reports whether named has the zone loaded (zonestatus shows a
// serial or a load time), and the text it answered.
func (r *crashRig) zoneLoaded(zone string) (bool, string) {
	st, err := r.rc.ZoneStatus(context.Background(), zone)
	if err != nil {
		return false, err.Error()
	}
	return st.Loaded, st.Raw
}

// TestEmptyJournalRepaired: named killed while it creates a zone's journal
// (the zone's first UPDATE) leaves a 0-byte .jnl, and after its restart
// named refuses to load the zone ("journal open failed"): SERVFAIL for
// everyone. The state is reproduced exactly: named killed, the empty
// journal, named started. Reconcile notices the managed primary zone
// named does not load, removes the empty journal (it holds nothing),
// reloads the zone and reports it; a journal that is not empty is not
// touched: reconcile and readiness say which zone is not loaded and why.
// (Before: GET said loaded: false, record changes answered 500, and
// reconcile reported nothing.)
func TestEmptyJournalRepaired(t *testing.T) {
	r := newCrashRig(t, "5s")
	const zone, bad = "emptyjnl.test", "badjnl.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	r.must("POST", "/api/v1/zones", zoneBody(bad), 201)
	_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
	for r.ns.Running() {
		time.Sleep(10 * time.Millisecond)
	}
	jnl := filepath.Join(r.ns.ZoneDir, zone+".zone.jnl")
	if err := os.WriteFile(jnl, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	badJnl := filepath.Join(r.ns.ZoneDir, bad+".zone.jnl")
	if err := os.WriteFile(badJnl, []byte("not a journal, and not empty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.ns.Restart(t)
	// The API's restart watch may have repaired it already: named is up
	// a little before Restart returns, and the watch looks every 2 s.
	if ok, text := r.zoneLoaded(zone); ok && !strings.Contains(r.c.Log(), "removed an empty journal") {
		t.Fatalf("named loaded the zone despite the empty journal: %s", text)
	}

	// A reconcile (the API also runs one when it sees named restart)
	// repairs the empty journal and reports the other.
	deadline := time.Now().Add(30 * time.Second)
	var fixed, problems string
	for {
		_, rep := r.reconcile()
		fixed, problems = fmt.Sprint(rep["fixed"]), fmt.Sprint(rep["problems"])
		if ok, _ := r.zoneLoaded(zone); ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if ok, text := r.zoneLoaded(zone); !ok {
		t.Fatalf("the zone with the empty journal is still not loaded after reconcile (fixed %s, problems %s): %s", fixed, problems, text)
	}
	if !strings.Contains(fixed+r.c.Log(), "removed-empty-journal") {
		t.Errorf("the repair was not reported: fixed %s", fixed)
	}
	if !strings.Contains(problems, bad) || !strings.Contains(problems, "zone-not-loaded") {
		t.Errorf("reconcile does not report the zone named cannot load: problems %s", problems)
	}
	if _, err := os.Stat(badJnl); err != nil {
		t.Errorf("the non-empty journal was touched: %v", err)
	}
	if soa := query(t, r.ns, zone, dns.TypeSOA); soa.Rcode != dns.RcodeSuccess {
		t.Errorf("SOA of the repaired zone: %s", dns.RcodeToString[soa.Rcode])
	}
	r.must("PATCH", "/api/v1/zones/"+zone+"/records", map[string]any{"changes": []map[string]any{{"op": "add", "name": "after", "type": "TXT", "value": "repaired"}}}, 200)
	st, m, raw := r.try("GET", "/api/v1/ready", nil)
	if !strings.Contains(raw, bad) {
		t.Errorf("readiness does not name the zone named cannot load: %d %s", st, raw)
	}
	_ = m
}

// writeEmptyJournal leaves the zone's journal as named killed while it
// creates it does: 0 bytes.
func writeEmptyJournal(r *crashRig, zone string) error {
	return os.WriteFile(filepath.Join(r.ns.ZoneDir, zone+".zone.jnl"), nil, 0o644)
}
