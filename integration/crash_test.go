package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// crashRig is a named and a caddy that the crash tests kill and restart.
type crashRig struct {
	t      *testing.T
	ns     *testbind.Server
	c      *caddy
	rc     *rndc.Client
	client *http.Client
}

// newCrashRig starts named and caddy with the given rndc timeout.
func newCrashRig(t *testing.T, rndcTimeout string) *crashRig {
	return newCrashRigOn(t, startNamed(t), rndcTimeout, caddyOpts{})
}

// newCrashRigOn starts caddy, with opts, for the running named ns.
func newCrashRigOn(t *testing.T, ns *testbind.Server, rndcTimeout string, opts caddyOpts) *crashRig {
	c := newCaddy(t, ns, opts)
	if err := os.WriteFile(c.ConfigPath(), []byte(c.Caddyfile(rndcTimeout)), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Start()
	t.Cleanup(c.Stop)
	key, err := rndc.NewKey(ns.RNDCKeyName, ns.RNDCAlgorithm, ns.RNDCSecret)
	if err != nil {
		t.Fatal(err)
	}
	return &crashRig{t: t, ns: ns, c: c, rc: &rndc.Client{Addr: ns.ControlAddr, Key: key, Timeout: 5 * time.Second, MaxIdle: -1},
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}}
}

// try sends a request and returns the status (0 when the request failed,
// e.g. because caddy was killed) and the decoded body.
func (r *crashRig) try(method, path string, body any) (int, map[string]any, string) {
	return r.tryWith(method, path, body, nil)
}

// tryWith is try with further request headers.
func (r *crashRig) tryWith(method, path string, body any, header http.Header) (int, map[string]any, string) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, r.c.Base+path, rd)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m, string(raw)
}

// must sends a request and fails the test unless the status is one of want.
func (r *crashRig) must(method, path string, body any, want ...int) map[string]any {
	r.t.Helper()
	st, m, raw := r.try(method, path, body)
	if !slices.Contains(want, st) {
		r.t.Fatalf("%s %s: %d %s, want %v", method, path, st, raw, want)
	}
	return m
}

// killCaddy kills caddy with SIGKILL and starts it again.
func (r *crashRig) killCaddy() {
	_ = r.c.Process().Signal(syscall.SIGKILL)
	<-r.c.Done()
	r.c.Start()
}

// killNamed kills named with SIGKILL and starts it again.
func (r *crashRig) killNamed() {
	if pid := r.ns.Pid(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	r.ns.Restart(r.t)
}

// reconcile runs POST /server/reconcile and returns the zones still
// pending.
func (r *crashRig) reconcile() (pending map[string]bool, report map[string]any) {
	r.t.Helper()
	report = r.must("POST", "/api/v1/server/reconcile", nil, 200)
	pending = map[string]bool{}
	for _, p := range report["pending"].([]any) {
		pending[p.(map[string]any)["zone"].(string)] = true
	}
	return pending, report
}

// settle reconciles until nothing is pending (bounded).
func (r *crashRig) settle() {
	r.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		pending, rep := r.reconcile()
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("still pending after 90 s: %v", rep)
		}
		time.Sleep(time.Second)
	}
}

// state reads the three views of which zones exist: the index (list), the
// zones named serves with their file in the zone directory, and the zone
// files.
func (r *crashRig) state(names []string) (listed, served, files map[string]bool) {
	r.t.Helper()
	listed, served, files = map[string]bool{}, map[string]bool{}, map[string]bool{}
	m := r.must("GET", "/api/v1/zones?limit=1000", nil, 200)
	for _, z := range m["zones"].([]any) {
		listed[z.(string)] = true
	}
	for _, n := range names {
		zc, err := r.rc.ShowZoneStatement(context.Background(), n)
		if err != nil {
			if !rndc.IsNotFound(err) {
				r.t.Fatalf("showzone %s: %v", n, err)
			}
			continue
		}
		f, _ := zc.Get("file")
		if strings.Trim(f.String(), `"`) == filepath.Join(r.ns.ZoneDir, n+".zone") {
			served[n] = true
		}
	}
	paths, _ := filepath.Glob(filepath.Join(r.ns.ZoneDir, "*.zone"))
	for _, p := range paths {
		files[strings.TrimSuffix(filepath.Base(p), ".zone")] = true
	}
	return listed, served, files
}

// crashModel is what the client knows: zones acknowledged present or
// absent, those whose last operation's outcome it does not know, and the
// records acknowledged in each zone.
type crashModel struct {
	state   map[string]string          // "present", "absent", "unknown"
	records map[string]map[string]bool // zone -> acknowledged "name TXT value"
}

// newCrashModel is the model of a run over names, all absent.
func newCrashModel(names []string) crashModel {
	m := crashModel{state: map[string]string{}, records: map[string]map[string]bool{}}
	for _, n := range names {
		m.state[n] = "absent"
	}
	return m
}

// crashKills is a run's kills in a random order: "caddy" caddy times,
// "named" named times.
func crashKills(rng *rand.Rand, caddy, named int) []string {
	kills := []string{}
	for range caddy {
		kills = append(kills, "caddy")
	}
	for range named {
		kills = append(kills, "named")
	}
	rng.Shuffle(len(kills), func(i, j int) { kills[i], kills[j] = kills[j], kills[i] })
	return kills
}

// crashBatch is a batch of 20 TXT adds to zone, numbered on from *seq:
// the changes of the request and the records as the model lists them.
func crashBatch(seq *int, zone string) (changes []map[string]any, records []string) {
	for range 20 {
		*seq++
		v := fmt.Sprintf("v%d", *seq)
		changes = append(changes, map[string]any{"op": "add", "name": "r" + strconv.Itoa(*seq), "type": "TXT", "value": v})
		records = append(records, fmt.Sprintf("r%d.%s TXT %s", *seq, zone, v))
	}
	return changes, records
}

// checkCleanSlate checks, once nothing is pending, that no name is
// blocked: each can be created and deleted (a 504, named slower than the
// rndc timeout on a loaded machine, is answered as a client should: the
// same request again), and nothing remains.
func (r *crashRig) checkCleanSlate(t *testing.T, names []string, m *crashModel) {
	t.Helper()
	for _, n := range names {
		if m.state[n] == "present" {
			if st, raw := r.waitNot("DELETE", "/api/v1/zones/"+n, nil, 504); st != 200 && st != 202 {
				t.Fatalf("delete %s: %d %s", n, st, raw)
			}
		}
		if st, raw := r.waitNot("POST", "/api/v1/zones", zoneBody(n), 504); st != 201 && !(st == 409 && sameConfig(raw)) {
			t.Fatalf("create %s: %d %s", n, st, raw)
		}
		if st, raw := r.waitNot("DELETE", "/api/v1/zones/"+n, nil, 504); st != 200 && st != 202 {
			t.Fatalf("delete %s: %d %s", n, st, raw)
		}
	}
	r.settle()
	listed, served, files := r.state(names)
	if len(listed)+len(served)+len(files) != 0 {
		t.Errorf("after deleting everything: listed %v, served %v, files %v", listed, served, files)
	}
}

// crashRand returns the random source of a crash run and its seed: from
// ZONEAPI_CRASH_SEED (to replay a run) or the clock, logged; salt sets
// one test's sequence apart from another's.
func crashRand(t *testing.T, salt uint64) (*rand.Rand, uint64) {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("ZONEAPI_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (ZONEAPI_CRASH_SEED)", seed)
	return rand.New(rand.NewPCG(seed, seed^salt)), seed
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestCrashSafety kills caddy (ZONEAPI_CRASH_CADDY_KILLS, default 30) and
// named (ZONEAPI_CRASH_NAMED_KILLS, default 10) with SIGKILL at random
// points of a loop of creates, record batches and deletes. After each
// restart the invariant holds for every zone not pending: listed (index)
// == served by named with its file == a file in the zone directory; every
// acknowledged zone, delete and record is as acknowledged. At the end
// every name used can be created and deleted.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short")
	}
	caddyKills := envInt("ZONEAPI_CRASH_CADDY_KILLS", 30)
	namedKills := envInt("ZONEAPI_CRASH_NAMED_KILLS", 10)
	rng, _ := crashRand(t, 0x5eed)

	r := newCrashRig(t, "3s")
	names := make([]string, 8)
	for i := range names {
		names[i] = fmt.Sprintf("crash%d.test", i)
	}
	m := newCrashModel(names)
	seq := 0
	kills := crashKills(rng, caddyKills, namedKills)

	interrupted, fixed := 0, map[string]int{}
	for i, victim := range kills {
		name := names[rng.IntN(len(names))]
		var op string
		switch {
		case m.state[name] == "absent":
			op = "create"
		case m.state[name] == "unknown":
			op = []string{"create", "delete"}[rng.IntN(2)]
		default:
			op = []string{"batch", "batch", "delete", "create"}[rng.IntN(4)]
		}
		var batch []string
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
				st, _, raw = r.try("POST", "/api/v1/zones", zoneBody(name))
			case "delete":
				st, _, raw = r.try("DELETE", "/api/v1/zones/"+name, nil)
			case "batch":
				var changes []map[string]any
				changes, batch = crashBatch(&seq, name)
				st, _, raw = r.try("PATCH", "/api/v1/zones/"+name+"/records", map[string]any{"changes": changes})
			}
			done <- result{st, raw}
		}()
		time.Sleep(time.Duration(rng.IntN(12000)) * time.Microsecond)
		if victim == "caddy" {
			_ = r.c.Process().Signal(syscall.SIGKILL)
		} else if pid := r.ns.Pid(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		res := <-done
		if victim == "caddy" {
			<-r.c.Done()
			r.c.Start()
		} else {
			r.ns.Restart(t)
		}

		// What the answer acknowledged.
		switch {
		case op == "create" && res.status == 201:
			if m.state[name] != "present" {
				m.records[name] = map[string]bool{}
			}
			m.state[name] = "present"
		case op == "create" && res.status == 409:
			// The zone exists: made by a request with this body (an
			// earlier create of the run), never by another.
			if !sameConfig(res.raw) {
				t.Fatalf("kill %d: create of %s: 409 without sameConfig true: %s", i, name, res.raw)
			}
			if m.state[name] != "present" {
				m.records[name] = map[string]bool{}
			}
			m.state[name] = "present"
		case op == "delete" && (res.status == 200 || res.status == 202):
			m.state[name] = "absent"
			delete(m.records, name)
		case op == "delete" && res.status == 404 && m.state[name] == "absent":
		case op == "batch" && res.status == 200:
			for _, b := range batch {
				m.records[name][b] = true
			}
		case op == "batch":
			// not acknowledged: may or may not be there; not checked
		case res.status >= 200 && res.status < 300:
			t.Fatalf("kill %d: %s %s answered %d %s", i, op, name, res.status, res.raw)
		default:
			if op != "batch" {
				m.state[name] = "unknown"
			}
		}
		if res.status != 0 && res.status != 504 && res.status >= 500 && victim == "caddy" {
			t.Logf("kill %d (%s during %s %s): %d %s", i, victim, op, name, res.status, res.raw)
		}

		if res.status == 0 || res.status >= 500 {
			interrupted++
		}
		// (the repairs it reports are also logged, and counted below)
		r.checkInvariant(fmt.Sprintf("after kill %d (%s during %s %s → %d)", i, victim, op, name, res.status), names, &m)
	}
	logs := r.c.Log()
	for _, msg := range []string{"completed an interrupted create", "rolled back an interrupted create", "completed an interrupted delete", "adopted a zone", "moved aside a zone file"} {
		if n := strings.Count(logs, msg); n > 0 {
			fixed[msg] += n
		}
	}
	t.Logf("%d kills (%d caddy, %d named); %d operations interrupted or failed; repairs (start-up and on demand): %v", len(kills), caddyKills, namedKills, interrupted, fixed)

	// No name is blocked: once nothing is pending, each can be created
	// and deleted.
	r.settle()
	r.checkInvariant("at the end", names, &m)
	_ = r.killCaddy
	_ = r.killNamed
	r.checkCleanSlate(t, names, &m)
}

// checkInvariant reconciles (as the first request after a restart does)
// and checks the three views against each other and against the model.
func (r *crashRig) checkInvariant(when string, names []string, m *crashModel) (fixes []string) {
	r.t.Helper()
	pending, rep := r.reconcile()
	for _, f := range rep["fixed"].([]any) {
		fixes = append(fixes, f.(map[string]any)["action"].(string))
	}
	listed, served, files := r.state(names)
	for _, n := range names {
		if pending[n] {
			continue
		}
		if listed[n] != served[n] || served[n] != files[n] {
			r.t.Fatalf("%s: %s listed %v, served with its file %v, file %v", when, n, listed[n], served[n], files[n])
		}
		switch m.state[n] {
		case "unknown":
			// Settled now: learn the outcome.
			if listed[n] {
				m.state[n] = "present"
				if m.records[n] == nil {
					m.records[n] = map[string]bool{}
				}
			} else {
				m.state[n] = "absent"
				delete(m.records, n)
			}
		case "present":
			if !listed[n] {
				r.t.Fatalf("%s: %s was acknowledged created and is gone", when, n)
			}
		case "absent":
			if listed[n] {
				r.t.Fatalf("%s: %s was acknowledged deleted (or never created) and exists", when, n)
			}
		}
	}
	for zone, recs := range m.records {
		if pending[zone] || m.state[zone] != "present" || len(recs) == 0 {
			continue
		}
		have := map[string]bool{}
		for _, rr := range axfr(r.t, r.ns, zone) {
			if txt, ok := rr.(*dns.TXT); ok {
				have[fmt.Sprintf("%s TXT %s", strings.TrimSuffix(txt.Hdr.Name, "."), strings.Join(txt.Txt, ""))] = true
			}
		}
		var lost []string
		for rec := range recs {
			if !have[rec] {
				lost = append(lost, rec)
			}
		}
		if len(lost) > 0 {
			sort.Strings(lost)
			r.t.Fatalf("%s: %d acknowledged records of %s lost, e.g. %v", when, len(lost), zone, lost[:min(3, len(lost))])
		}
	}
	return fixes
}

// sameConfig reports whether raw is a create's 409 saying the existing
// zone was made by a request with the same body.
func sameConfig(raw string) bool {
	var b struct {
		SameConfig bool `json:"sameConfig"`
	}
	return json.Unmarshal([]byte(raw), &b) == nil && b.SameConfig
}
