package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The zone lifecycle under faults: issue 10's defects 1, 2, 4, 5 and 6,
// reproduced end to end against a real named and caddy (named stopped
// with SIGSTOP, caddy or named killed). Each test failed on the code before
// the zone lifecycle (zoneservice, formerly zonelife); the commit of each fix says so.

// warmPool asks caddy for the server status four times at once, so that
// its rndc client may keep several idle control connections for commands
// sent while named is stopped. Nothing ensures it: requests that do not
// overlap leave one. A test whose command must be sent uses stopNamedAt;
// the tests that use warmPool accept either 504 (outcome unknown, or
// nothing sent).
func (r *crashRig) warmPool() {
	done := make(chan struct{})
	for range 4 {
		go func() { r.try("GET", "/api/v1/server/status", nil); done <- struct{}{} }()
	}
	for range 4 {
		<-done
	}
}

// stopNamed sends SIGSTOP to named, waits until every thread of it has
// stopped, and returns the function that sends SIGCONT (also run at
// cleanup). The signal stops named's threads a little later, not as kill
// returns: a loaded run sent a record add right after it and named
// answered it (201 where the test wanted 504).
func stopNamed(t *testing.T, r *crashRig) func() {
	pid := r.ns.Pid()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !allStopped(pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGCONT)
			t.Fatal("named's threads did not all stop after SIGSTOP")
		}
	}
	resumed := false
	cont := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(cont)
	return cont
}

// allStopped reports whether every thread of process pid is stopped
// (state T in /proc/<pid>/task/<tid>/stat).
func allStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, tk := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, tk.Name()))
		if err != nil {
			return false
		}
		// The state follows the command name, which is in parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}

// stopNamedAt makes the control-channel proxy p stop named (SIGSTOP) as
// soon as it has forwarded a command whose text starts with verb, and
// lose named's reply to it: the command is sent for sure (stopping named
// before the request does not ensure that: a command then goes out only
// on an idle connection whose nonce named had issued), and caddy never
// learns its outcome. stopped receives once named was stopped; cont
// clears the rule and continues named (also run at cleanup).
func stopNamedAt(t *testing.T, r *crashRig, p *ctlProxy, verb string) (stopped <-chan error, cont func()) {
	pid := r.ns.Pid()
	ch := make(chan error, 1)
	p.mu.Lock()
	p.after = func(string) {
		select {
		case ch <- syscall.Kill(pid, syscall.SIGSTOP):
		default:
		}
	}
	p.mu.Unlock()
	p.lose(verb)
	resumed := false
	cont = func() {
		if !resumed {
			resumed = true
			p.lose()
			p.mu.Lock()
			p.after = nil
			p.mu.Unlock()
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(cont)
	return ch, cont
}

// namedStopped fails the test unless stopNamedAt's proxy has stopped
// named.
func namedStopped(t *testing.T, stopped <-chan error) {
	t.Helper()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("named was not stopped: the command was not forwarded")
	}
}

// namedStoppedWithin waits (bounded) until stopNamedAt's proxy has
// stopped named.
func namedStoppedWithin(t *testing.T, stopped <-chan error) {
	t.Helper()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("named was not stopped: the command was not forwarded")
	}
}

// waitNot retries a request while it answers one of the statuses in
// retry (bounded), and returns the last answer.
func (r *crashRig) waitNot(method, path string, body any, retry ...int) (int, string) {
	deadline := time.Now().Add(40 * time.Second)
	for {
		st, _, raw := r.try(method, path, body)
		if !containsInt(retry, st) || time.Now().After(deadline) {
			return st, raw
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestInterruptedCreateSettlesAtRestart: a create whose addzone was sent
// to a named that stopped (SIGSTOP) as it came, caddy killed, named
// continued, caddy restarted: the zone is either fully there or fully
// gone, and the name is not blocked (before: served by named with a file
// but absent from the index; creates answered 409 and DELETE 200 while
// keeping the file, forever). The proxy stops named once it has forwarded
// the addzone (stopNamedAt), so the addzone is always sent.
func TestInterruptedCreateSettlesAtRestart(t *testing.T) {
	r, p := newProxiedRig(t, "2s", "")
	const zone = "interrupted.test"
	stopped, cont := stopNamedAt(t, r, p, "addzone")
	done := make(chan int, 1)
	go func() { st, _, _ := r.try("POST", "/api/v1/zones", zoneBody(zone)); done <- st }()
	namedStoppedWithin(t, stopped)
	_ = r.c.Process().Signal(syscall.SIGKILL)
	<-r.c.Done()
	<-done
	cont()
	r.c.Start()

	// The first request settles the interrupted create (possibly only
	// once named can no longer execute the addzone: 504 until then).
	st, raw := r.waitNot("POST", "/api/v1/zones", zoneBody(zone), 504)
	if st != 201 && !(st == 409 && sameConfig(raw)) {
		t.Fatalf("create after the interrupted one: %d %s, want 201 or 409 with sameConfig", st, raw)
	}
	listed, served, files := r.state([]string{zone})
	if !listed[zone] || !served[zone] || !files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	r.must("DELETE", "/api/v1/zones/"+zone, nil, 200)
	listed, served, files = r.state([]string{zone})
	if listed[zone] || served[zone] || files[zone] {
		t.Fatalf("after delete: listed %v served %v file %v", listed, served, files)
	}
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
}

// TestTimedOutCreateAnswers504AndRetryFindsZone: an addzone that named
// does not answer (stopped as it came: stopNamedAt) answers 504 (the
// outcome is unknown) and is not rolled back; named executes it when it
// wakes; a retry of the same create finds the zone (before: 500, the file
// removed, the retry 409 "not created through this API", and the zone
// served from memory without file or index entry).
func TestTimedOutCreateAnswers504AndRetryFindsZone(t *testing.T) {
	r, p := newProxiedRig(t, "2s", "")
	const zone = "timedout.test"
	stopped, cont := stopNamedAt(t, r, p, "addzone")
	st, m, raw := r.try("POST", "/api/v1/zones", zoneBody(zone))
	if st != 504 || m["error"] != "Gateway Timeout" || !strings.Contains(raw, "unknown") {
		t.Fatalf("create whose addzone named did not answer: %d %s, want 504 saying the outcome is unknown", st, raw)
	}
	namedStopped(t, stopped)
	if _, err := os.Stat(filepath.Join(r.ns.ZoneDir, zone+".zone")); err != nil {
		t.Fatalf("the zone file was removed although named may still add the zone: %v", err)
	}
	cont()
	st, raw = r.waitNot("POST", "/api/v1/zones", zoneBody(zone), 504)
	if st != 201 && !(st == 409 && sameConfig(raw)) {
		t.Fatalf("retry without a key: %d %s, want 201 or 409 with sameConfig", st, raw)
	}
	listed, served, files := r.state([]string{zone})
	if !listed[zone] || !served[zone] || !files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	// It survives a restart of named (its file is there).
	r.ns.Restart(t)
	if _, served, _ := r.state([]string{zone}); !served[zone] {
		t.Fatal("zone lost after named restarted")
	}
	r.must("GET", "/api/v1/zones/"+zone, nil, 200)
}

// TestInterruptedDeleteFinishesAtRestart: a delete interrupted after its
// delzone was sent (named stopped as the delzone reached it, so no reply;
// caddy killed) is finished at the next start: not listed, no files
// (before: listed, GET 404, files left). The proxy stops named once it
// has forwarded the delzone (stopNamedAt). Stopping named before the
// DELETE did not ensure the delzone was sent: showzone, before it, took
// caddy's one idle connection, and the delzone's new connection never
// got its nonce (then: 500, or now 504 "nothing was sent").
func TestInterruptedDeleteFinishesAtRestart(t *testing.T) {
	r, p := newProxiedRig(t, "2s", "")
	const zone = "halfdeleted.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	stopped, cont := stopNamedAt(t, r, p, "delzone")
	st, m, raw := r.try("DELETE", "/api/v1/zones/"+zone, nil)
	if st != 504 || m["error"] != "Gateway Timeout" || !strings.Contains(raw, "outcome is unknown") {
		t.Fatalf("DELETE whose delzone named did not answer: %d %s, want 504 saying the outcome is unknown", st, raw)
	}
	namedStopped(t, stopped)
	_ = r.c.Process().Signal(syscall.SIGKILL)
	<-r.c.Done()
	cont() // named reads the delzone now, if it had not yet
	r.c.Start()
	st, raw = r.waitNot("GET", "/api/v1/zones/"+zone, nil, 504, 200)
	if st != 404 {
		t.Logf("%s", r.c.Log())
		t.Fatalf("GET after the interrupted delete: %d %s", st, raw)
	}
	r.settle()
	listed, served, files := r.state([]string{zone})
	if listed[zone] || served[zone] || files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
}

// TestDeleteAnswered200SurvivesNamedKill: a DELETE answered 200 stays deleted when named
// is killed right after (before: 1 kill in 20 brought the zone back, named
// had not yet written its new-zone database). Probabilistic on the old
// code; on the new one the 200 waits for named's confirmation.
func TestDeleteAnswered200SurvivesNamedKill(t *testing.T) {
	r := newCrashRig(t, "5s")
	for i := range 5 {
		zone := "durable" + string(rune('a'+i)) + ".test"
		r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
		st, _, raw := r.try("DELETE", "/api/v1/zones/"+zone, nil)
		if st != 200 {
			t.Fatalf("delete: %d %s", st, raw)
		}
		_ = syscall.Kill(r.ns.Pid(), syscall.SIGKILL)
		r.ns.Restart(t)
		if _, served, _ := r.state([]string{zone}); served[zone] {
			t.Fatalf("%s came back after named was killed", zone)
		}
	}
}

// keyFiles lists the zone's DNSSEC key files in named's directory and in
// the zone directory.
func (r *crashRig) keyFiles(zone string) []string {
	var all []string
	for _, d := range []string{r.ns.Dir, r.ns.ZoneDir} {
		m, _ := filepath.Glob(filepath.Join(d, "K"+zone+".+*"))
		all = append(all, m...)
	}
	return all
}

// waitKeyFiles waits up to 60 s for named to make the zone's keys and
// reports whether it did. Each second without them it asks named to run
// its key manager for the zone (rndc loadkeys): BIND 9.18 now and then
// skips it for a zone just added with a dnssec-policy (see
// zoneservice.Service.LoadKeys).
func (r *crashRig) waitKeyFiles(zone string) bool {
	deadline := time.Now().Add(60 * time.Second)
	nudge := time.Now().Add(time.Second)
	for len(r.keyFiles(zone)) == 0 && time.Now().Before(deadline) {
		if time.Now().After(nudge) {
			_, _ = r.ns.RNDC("loadkeys", zone)
			nudge = time.Now().Add(time.Second)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return len(r.keyFiles(zone)) > 0
}

// TestDeleteRemovesDNSSECKeys: deleting an inline-signed zone removes its key
// files (before: named wrote them to its directory, not the zone
// directory, and they were left behind). named here has no key-directory
// option: its keys would go to its working directory.
func TestDeleteRemovesDNSSECKeys(t *testing.T) {
	r := newCrashRig(t, "5s")
	const zone = "signed.test"
	body := zoneBody(zone)
	body["zoneConfig"].(map[string]any)["dnssecPolicy"] = "default"
	r.must("POST", "/api/v1/zones", body, 201)
	if !r.waitKeyFiles(zone) {
		t.Fatal("named made no keys for the signed zone")
	}
	r.must("DELETE", "/api/v1/zones/"+zone, nil, 200)
	if left := r.keyFiles(zone); len(left) > 0 {
		t.Fatalf("key files left: %v", left)
	}
}

// TestTimedOutRecordChangeAnswers504: a record change that times out answers 504
// saying the outcome is unknown (before: 500 "failed … i/o timeout", and
// named applied the change when it woke).
func TestTimedOutRecordChangeAnswers504(t *testing.T) {
	r := newCrashRig(t, "2s")
	const zone = "rectimeout.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)
	cont := stopNamed(t, r)
	st, m, raw := r.try("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "late", "type": "TXT", "value": "maybe"})
	cont()
	if st != 504 || m["error"] != "Gateway Timeout" || !strings.Contains(raw, "unknown") {
		t.Fatalf("record add with named stopped: %d %s, want 504 saying the outcome is unknown", st, raw)
	}
	// Reading the records tells the outcome (named may apply it on waking).
	deadline := time.Now().Add(3 * time.Second)
	for {
		rm := r.must("GET", "/api/v1/zones/"+zone+"/records?name=late&type=TXT", nil, 200)
		if n, _ := rm["count"].(float64); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Logf("the timed-out add was not applied (also a valid outcome): %v", rm)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}
