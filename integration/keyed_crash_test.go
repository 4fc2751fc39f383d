package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// keyedWorker is one client of TestKeyedCreateCrash: it creates zones of
// its own, each with a key of its own, one at a time, and sends a create
// whose outcome it does not know again with the same key and body until
// it has an answer. What it saw is in its fields once it has stopped.
type keyedWorker struct {
	r    *crashRig
	id   int
	run  string
	stop <-chan struct{}
	// unknowns counts the phase's creates with an unknown outcome (all
	// its workers').
	unknowns *atomic.Int64

	created []string // zones answered 201 (or 200)
	// recovered are the keys (by zone) of the creates answered 201 after
	// an unknown outcome.
	recovered map[string]string
	unknown   int      // creates whose outcome was unknown (no answer, 504)
	retries   int      // requests sent again for them
	errs      []string // answers that break the contract
}

// loop creates zones until stop is closed.
func (w *keyedWorker) loop() {
	for n := 0; ; n++ {
		select {
		case <-w.stop:
			return
		default:
		}
		zone := fmt.Sprintf("k%d-%d.keyed.test", w.id, n)
		key := fmt.Sprintf("%s-%d-%d", w.run, w.id, n)
		st, m, raw := w.r.tryKeyed(key, zoneBody(zone))
		if unknownOutcome(st) {
			w.unknown++
			w.unknowns.Add(1)
			// The same key and body again until the outcome is known:
			// it must be the zone this create made. (A 500 while named
			// is not running says that nothing was done this time: the
			// create was rolled back once named could tell, and named
			// was killed again as it ran again; a client sends it again.)
			for deadline := time.Now().Add(90 * time.Second); (unknownOutcome(st) || st == 500) && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
				w.retries++
				st, m, raw = w.r.tryKeyed(key, zoneBody(zone))
			}
			if st != 201 && st != 200 {
				w.errs = append(w.errs, fmt.Sprintf("create of %s retried with its key after an unknown outcome: %d %s, want 201 with the zone", zone, st, raw))
				continue
			}
			w.recovered[zone] = key
		}
		switch st {
		case 201, 200:
			if zi, _ := m["zone"].(map[string]any); zi["name"] != zone {
				w.errs = append(w.errs, fmt.Sprintf("create of %s: %d without the zone: %s", zone, st, raw))
				continue
			}
			w.created = append(w.created, zone)
		case 500:
			// named not running: nothing was sent or it was undone (a
			// definite answer; the name is not used again).
		default:
			w.errs = append(w.errs, fmt.Sprintf("create of %s (a new name): %d %s", zone, st, raw))
		}
	}
}

// unknownOutcome reports whether a create's answer leaves its outcome
// unknown: no answer (caddy killed, or not running yet), 504 (named did
// not answer), 503 (caddy stopping).
func unknownOutcome(status int) bool {
	return status == 0 || status == http.StatusGatewayTimeout || status == http.StatusServiceUnavailable
}

// TestKeyedCreateCrash: clients (ZONEAPI_CRASH_KEYED_WORKERS, default 2)
// create zones, each with an Idempotency-Key of its own, while caddy
// (ZONEAPI_CRASH_KEYED_CADDY_KILLS, default 20) and then named
// (ZONEAPI_CRASH_KEYED_NAMED_KILLS, default 6: every other one a SIGSTOP
// for 3 s, past the rndc timeout of 2 s, then SIGCONT) are killed with
// SIGKILL at random moments and started again. Every create whose
// outcome was unknown (no answer, 504), sent again with its key and body
// until answered, is answered 201 with the zone it made (a hostile
// review saw 409 "send an Idempotency-Key to have a retry recognised as
// yours"), and at the end every zone answered 201 is listed and served,
// and after a config reload each such key still answers 201 with its
// body and 422 with another.
// The identity has used 2,500 keys earlier that day (bulk provisioning):
// none of its keys is refused for their number (before: 429 past 2,000).
func TestKeyedCreateCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short")
	}
	rng, seed := crashRand(t, 0x6b6579)
	r := newCrashRig(t, "2s")
	rememberBulkKeys(t, r, 2500)
	phases := []struct {
		victim string
		kills  int
	}{
		{"caddy", envInt("ZONEAPI_CRASH_KEYED_CADDY_KILLS", 20)},
		{"named", envInt("ZONEAPI_CRASH_KEYED_NAMED_KILLS", 6)},
	}
	var all []*keyedWorker
	for p, phase := range phases {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var workers []*keyedWorker
		var unknowns atomic.Int64
		for i := range envInt("ZONEAPI_CRASH_KEYED_WORKERS", 2) {
			w := &keyedWorker{r: r, id: p*100 + i, run: strconv.FormatUint(seed, 36), stop: stop, unknowns: &unknowns, recovered: map[string]string{}}
			workers = append(workers, w)
			wg.Go(w.loop)
		}
		// At least the phase's kills, and more (up to three times as
		// many) until one cut a create short: on a loaded machine a
		// hung named's creates may all have failed before anything was
		// sent (500, nothing done).
		kills := 0
		for i := 0; i < phase.kills || unknowns.Load() == 0 && i < 3*phase.kills; i++ {
			kills++
			time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
			switch {
			case phase.victim == "caddy":
				r.killCaddy()
			case i%2 == 0:
				r.killNamed()
			default:
				// named hung past the rndc timeout (2 s): the creates
				// sent meanwhile answer 504, and named runs their
				// addzone when it resumes.
				cont := stopNamed(t, r)
				time.Sleep(3 * time.Second)
				cont()
			}
		}
		close(stop)
		wg.Wait()
		unknown, retries, created := 0, 0, 0
		for _, w := range workers {
			unknown, retries, created = unknown+w.unknown, retries+w.retries, created+len(w.created)
			for i, e := range w.errs {
				if i == 5 {
					t.Errorf("client %d: %d more", w.id, len(w.errs)-i)
					break
				}
				t.Error(e)
			}
		}
		t.Logf("%d %s kills: %d zones created, %d creates with an unknown outcome retried with their key (%d requests again)", kills, phase.victim, created, unknown, retries)
		if unknown == 0 {
			t.Errorf("no create of the %s phase had an unknown outcome: the kills tested nothing", phase.victim)
		}
		all = append(all, workers...)
	}
	var created []string
	for _, w := range all {
		created = append(created, w.created...)
	}
	r.settle()
	listed := r.listedAll()
	_, served, _ := r.state(created)
	for _, z := range created {
		if !listed[z] || !served[z] {
			t.Errorf("%s was answered 201 and is listed %v, served with its file %v", z, listed[z], served[z])
		}
	}
	// After the crashes and a config reload each recovered key still
	// answers its 201, and names its first body: with another one it is
	// 422.
	reload(t, r.c, "3s")
	for _, w := range all {
		for zone, key := range w.recovered {
			st, m, raw := r.tryKeyed(key, zoneBody(zone))
			if zi, _ := m["zone"].(map[string]any); st != 201 || zi["name"] != zone {
				t.Errorf("%s's key again: %d %s, want 201 with the zone", zone, st, raw)
			}
			other := zoneBody(zone)
			other["zoneConfig"].(map[string]any)["ttl"] = 600
			if st, _, raw := r.tryKeyed(key, other); st != 422 {
				t.Errorf("%s's key with another body: %d %s, want 422", zone, st, raw)
			}
		}
	}
}

// rememberBulkKeys writes n Idempotency-Key records of the test's
// identity into the key log of r's zone directory, as a day's bulk
// provisioning by that identity leaves them (before caddy's first keyed
// create): past 2,000 every new key of the identity was refused with
// 429 until they expired.
func rememberBulkKeys(t *testing.T, r *crashRig, n int) {
	t.Helper()
	var b bytes.Buffer
	now := time.Now().UTC()
	for i := range n {
		zone := fmt.Sprintf("bulk%d.test", i)
		line, err := json.Marshal(zonestore.IdempotencyRecord{
			Key: fmt.Sprintf("bulk-%d", i), Principal: "basic:" + auth.Fingerprint(testToken), Request: "fp", Time: now.Add(-time.Hour),
			Status: 201, Header: map[string]string{"Location": "/api/v1/zones/" + zone},
			Body: fmt.Appendf(nil, `{"success":true,"message":"Zone %s created successfully","zone":{"name":"%s"}}`, zone, zone),
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	meta := filepath.Join(r.ns.ZoneDir, ".zoneapi")
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(meta, "idempotency.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b.Bytes()); err != nil {
		t.Fatal(err)
	}
}

// listedAll returns every zone the index lists, page by page.
func (r *crashRig) listedAll() map[string]bool {
	r.t.Helper()
	listed := map[string]bool{}
	cursor := ""
	for {
		path := "/api/v1/zones?limit=1000"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		m := r.must("GET", path, nil, 200)
		for _, z := range m["zones"].([]any) {
			listed[z.(string)] = true
		}
		if cursor, _ = m["nextCursor"].(string); cursor == "" {
			return listed
		}
	}
}
