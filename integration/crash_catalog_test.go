package integration

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestCrashSafetyCatalog is TestCrashSafety with the catalog on, a
// catalog-consuming secondary, two caddy instances on one zone directory
// (requests and kills spread over both) and zone PATCHes (also-notify)
// in the workload besides creates, record batches and deletes. Kills:
// ZONEAPI_CRASH_CADDY_KILLS (default 30), ZONEAPI_CRASH_NAMED_KILLS
// (default 10); ZONEAPI_CRASH_SEED replays a run. After every restart,
// besides TestCrashSafety's invariant (listed == served with its file ==
// has a file; every acknowledged create, delete, record batch and zone
// PATCH as acknowledged), it checks that every managed zone is served by
// the primary (named answers its SOA: loaded, not only configured), that
// the catalog's members equal the managed zones, and that the secondary
// serves exactly the managed zones within ZONEAPI_CRASH_SECONDARY_WITHIN
// (default 30 s); it reports the slowest.
func TestCrashSafetyCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short")
	}
	caddyKills := envInt("ZONEAPI_CRASH_CADDY_KILLS", 30)
	namedKills := envInt("ZONEAPI_CRASH_NAMED_KILLS", 10)
	within := time.Duration(envInt("ZONEAPI_CRASH_SECONDARY_WITHIN", 30)) * time.Second
	rng, _ := crashRand(t, 0xca7a)

	const catalogZone = "catalog.crash.test"
	pair := testbind.StartPair(t, catalogZone)
	sec := pair.Secondary
	extra := fmt.Sprintf("catalog %s {\n\t\t\t\talso_notify %s\n\t\t\t}", catalogZone, sec.DNSAddr)
	rigs := []*crashRig{
		newCrashRigOn(t, pair.Primary, "3s", caddyOpts{extra: extra}),
		newCrashRigOn(t, pair.Primary, "3s", caddyOpts{extra: extra}),
	}
	r := rigs[0]
	names := make([]string, 8)
	for i := range names {
		names[i] = fmt.Sprintf("cat%d.crash.test", i)
	}
	m := newCrashModel(names)
	// notify is each zone's acknowledged also-notify target ("" when a
	// PATCH's outcome is not known).
	notify := map[string]string{}
	secAddr := sec.DNSAddr
	kills := crashKills(rng, caddyKills, namedKills)

	seq, interrupted, ops := 0, 0, 0
	var slowest time.Duration
	cached := false // the secondary cached the primary as unreachable
	for i, victim := range kills {
		name := names[rng.IntN(len(names))]
		var op string
		switch {
		case m.state[name] == "absent":
			op = "create"
		case m.state[name] == "unknown":
			op = []string{"create", "delete"}[rng.IntN(2)]
		default:
			op = []string{"batch", "batch", "patch", "patch", "delete", "create"}[rng.IntN(6)]
		}
		via := rigs[rng.IntN(len(rigs))]
		var batch []string
		target := fmt.Sprintf("192.0.2.%d", 1+rng.IntN(250))
		type result struct {
			status int
			raw    string
		}
		done := make(chan result, 1)
		go func() {
			var st int
			var raw string
			switch op {
			case "create":
				st, _, raw = via.try("POST", "/api/v1/zones", zoneBody(name))
			case "delete":
				st, _, raw = via.try("DELETE", "/api/v1/zones/"+name, nil)
			case "patch":
				st, _, raw = via.try("PATCH", "/api/v1/zones/"+name, map[string]any{"alsoNotify": []string{secAddr, target}})
			case "batch":
				var changes []map[string]any
				changes, batch = crashBatch(&seq, name)
				st, _, raw = via.try("PATCH", "/api/v1/zones/"+name+"/records", map[string]any{"changes": changes})
			}
			done <- result{st, raw}
		}()
		ops++
		time.Sleep(time.Duration(rng.IntN(12000)) * time.Microsecond)
		killed := rigs[rng.IntN(len(rigs))]
		if victim == "caddy" {
			_ = killed.c.Process().Signal(syscall.SIGKILL)
		} else if pid := r.ns.Pid(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		res := <-done
		if victim == "caddy" {
			<-killed.c.Done()
			killed.c.Start()
		} else {
			r.ns.Restart(t)
		}

		switch {
		case op == "create" && (res.status == 201 || res.status == 409 && sameConfig(res.raw)):
			// 409 with sameConfig: the zone exists, made by a request
			// with this body (an earlier create of the run).
			if m.state[name] != "present" {
				m.records[name] = map[string]bool{}
				delete(notify, name)
			}
			m.state[name] = "present"
		case op == "create" && res.status == 409:
			t.Fatalf("kill %d: create of %s: 409 without sameConfig true: %s", i, name, res.raw)
		case op == "delete" && (res.status == 200 || res.status == 202):
			m.state[name] = "absent"
			delete(m.records, name)
			delete(notify, name)
		case op == "delete" && res.status == 404 && m.state[name] == "absent":
		case op == "batch" && res.status == 200:
			for _, b := range batch {
				m.records[name][b] = true
			}
		case op == "batch":
		case op == "patch" && res.status == 200:
			notify[name] = target
		case op == "patch" && res.status == 404 && m.state[name] != "present":
		case op == "patch":
			notify[name] = "" // not acknowledged: either value may hold
		case res.status >= 200 && res.status < 300:
			t.Fatalf("kill %d: %s %s answered %d %s", i, op, name, res.status, res.raw)
		default:
			// A create or delete whose outcome is unknown: the zone may
			// be a new one, without the PATCHed configuration.
			m.state[name] = "unknown"
			notify[name] = ""
		}
		if res.status == 0 || res.status >= 500 {
			interrupted++
		}
		when := fmt.Sprintf("after kill %d (%s during %s %s → %d)", i, victim, op, name, res.status)
		r.checkInvariant(when, names, &m)
		r.checkServed(when, names)
		r.checkPatches(when, notify)
		r.checkCatalogMembers(when, names)
		if !cached {
			took, ok := r.checkSecondary(when, sec, names, within)
			slowest = max(slowest, took)
			if !ok {
				// BIND's unreachable cache (docs/reliability.md): the
				// secondary skips transfers for up to 600 s; that is
				// what remains, not a failure of the API.
				cached = true
				t.Logf("%s: the secondary cached the primary as unreachable; its check is suspended for the rest of the run", when)
			}
		}
	}
	fixed := map[string]int{}
	for _, rg := range rigs {
		logs := rg.c.Log()
		for _, msg := range []string{"completed an interrupted create", "rolled back an interrupted create", "completed an interrupted delete",
			"removed an empty journal", "healed after named restarted"} {
			if n := strings.Count(logs, msg); n > 0 {
				fixed[msg] += n
			}
		}
	}
	t.Logf("%d kills (%d caddy over 2 instances, %d named), %d operations, %d interrupted or failed; invariants held after every restart; "+
		"the secondary served exactly the managed zones within %v at the slowest (bound %v; cached the primary as unreachable: %v); repairs: %v",
		len(kills), caddyKills, namedKills, ops, interrupted, slowest.Round(100*time.Millisecond), within, cached, fixed)

	r.settle()
	r.checkInvariant("at the end", names, &m)
	r.checkCleanSlate(t, names, &m)
}

// checkServed: every listed zone (not pending) is served by the primary:
// named answers its SOA with authority.
func (r *crashRig) checkServed(when string, names []string) {
	r.t.Helper()
	pending, _ := r.reconcile()
	listed, _, _ := r.state(names)
	for _, n := range names {
		if listed[n] && !pending[n] {
			if _, ok := soaOn(r.ns, n); !ok {
				r.t.Fatalf("%s: managed zone %s is not served by the primary (loaded: %v)", when, n, func() string { _, s := r.zoneLoaded(n); return s }())
			}
		}
	}
}

// checkPatches: a zone whose last PATCH was acknowledged has the
// also-notify target it set.
func (r *crashRig) checkPatches(when string, notify map[string]string) {
	r.t.Helper()
	for zone, target := range notify {
		if target == "" {
			continue
		}
		st, body, raw := r.try("GET", "/api/v1/zones/"+zone, nil)
		if st != 200 {
			continue // gone or unknown: checked by the invariant
		}
		if !strings.Contains(fmt.Sprint(body["config"]), target) {
			r.t.Fatalf("%s: %s's acknowledged PATCH (also-notify %s) is not in its configuration: %s", when, zone, target, raw)
		}
	}
}

// checkCatalogMembers: the catalog's members equal the managed zones of
// names (a named restart's healing may take a few seconds).
func (r *crashRig) checkCatalogMembers(when string, names []string) {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		listed, _, _ := r.state(names)
		st, body, raw := r.try("GET", "/api/v1/catalog", nil)
		var members, want []string
		if st == 200 {
			for _, mb := range toSlice(body["members"]) {
				members = append(members, mb.(map[string]any)["zone"].(string))
			}
		}
		for z := range listed {
			want = append(want, z)
		}
		slices.Sort(members)
		slices.Sort(want)
		if st == 200 && slices.Equal(members, want) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: catalog members %v, managed zones %v (%d %s)", when, members, want, st, raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkSecondary: within the bound, the secondary serves exactly the
// managed zones of names; it returns how long that took. When it does not
// and the secondary has logged that it caches the primary as unreachable
// (BIND, see TestSecondaryUnreachableCacheRemains), it returns false.
func (r *crashRig) checkSecondary(when string, sec *testbind.Server, names []string, within time.Duration) (time.Duration, bool) {
	r.t.Helper()
	listed, _, _ := r.state(names)
	start := time.Now()
	for {
		var wrong []string
		for _, n := range names {
			if _, ok := soaOn(sec, n); ok != listed[n] {
				wrong = append(wrong, fmt.Sprintf("%s (managed %v, on the secondary %v)", n, listed[n], ok))
			}
		}
		if len(wrong) == 0 {
			return time.Since(start), true
		}
		if time.Since(start) > within {
			if strings.Contains(sec.LogTail(400), "unreachable (cached)") {
				return time.Since(start), false
			}
			r.t.Fatalf("%s: after %v the secondary does not serve exactly the managed zones: %v; its log:\n%s", when, within, wrong, sec.LogTail(40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
