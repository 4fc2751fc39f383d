package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// tryKeyed is crashRig.try for a create with an Idempotency-Key.
func (r *crashRig) tryKeyed(key string, body any) (int, map[string]any, string) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", r.c.Base+"/api/v1/zones", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", `"`+key+`"`)
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

// TestCreateRaceOneCreated: 20 identical creates sent at once through
// the built Caddy give exactly one 201 and 19 × 409 with sameConfig true
// (before: one 201 and 19 × 200 "already created by an earlier identical
// request", telling 19 clients that they made a zone they did not).
func TestCreateRaceOneCreated(t *testing.T) {
	r := newCrashRig(t, "10s")
	const zone = "race.test"
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	start := make(chan struct{})
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			st, m, raw := r.try("POST", "/api/v1/zones", zoneBody(zone))
			key := fmt.Sprint(st)
			if st == 409 {
				key += fmt.Sprintf(" sameConfig=%v", m["sameConfig"])
			}
			mu.Lock()
			counts[key]++
			mu.Unlock()
			if st != 201 && st != 409 {
				t.Errorf("create: %d %s", st, raw)
			}
		}()
	}
	close(start)
	wg.Wait()
	if counts["201"] != 1 || counts["409 sameConfig=true"] != 19 {
		t.Fatalf("answers %v, want one 201 and 19 × 409 with sameConfig true", counts)
	}
	listed, served, files := r.state([]string{zone})
	if !listed[zone] || !served[zone] || !files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	// Another body for the name: 409, sameConfig false.
	other := zoneBody(zone)
	other["zoneConfig"].(map[string]any)["ttl"] = 600
	if st, m, raw := r.try("POST", "/api/v1/zones", other); st != 409 || m["sameConfig"] != false {
		t.Fatalf("another body: %d %s, want 409 with sameConfig false", st, raw)
	}
}

// TestCreateRetryWithKeyAfter504: a create with an Idempotency-Key that
// named does not answer (SIGSTOP) is answered 504; sent again with the
// same key once named resumes, it is answered 201 with the zone, and
// the zone is served, listed and its file kept. The same key keeps
// answering that 201 (after a restart of caddy too), an identical
// create without the key gets 409 sameConfig, and the key with another
// body 422.
func TestCreateRetryWithKeyAfter504(t *testing.T) {
	r := newCrashRig(t, "2s")
	const zone = "keyed.test"
	const key = "7d0e7f1c-2b1e-4a55-9d55-1b0f1e6c2a11"
	r.warmPool()
	cont := stopNamed(t, r)
	st, m, raw := r.tryKeyed(key, zoneBody(zone))
	if st != 504 || m["error"] != "Gateway Timeout" {
		t.Fatalf("create with named stopped: %d %s, want 504", st, raw)
	}
	cont()
	deadline := time.Now().Add(40 * time.Second)
	for st == 504 && time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		st, m, raw = r.tryKeyed(key, zoneBody(zone))
	}
	first := raw
	zi, _ := m["zone"].(map[string]any)
	if st != 201 || zi["name"] != zone || m["success"] != true {
		t.Fatalf("retry with the key after named resumed: %d %s, want 201 with the zone", st, raw)
	}
	listed, served, files := r.state([]string{zone})
	if !listed[zone] || !served[zone] || !files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	if soa := query(t, r.ns, zone, dns.TypeSOA); len(answers(soa, dns.TypeSOA)) != 1 {
		t.Fatalf("named does not answer the zone's SOA: %v", soa)
	}
	if st, _, raw := r.tryKeyed(key, zoneBody(zone)); st != 201 || raw != first {
		t.Errorf("the key again: %d %s, want the same 201 %s", st, raw, first)
	}
	if st, m, raw := r.try("POST", "/api/v1/zones", zoneBody(zone)); st != 409 || m["sameConfig"] != true {
		t.Errorf("the same body without the key: %d %s, want 409 with sameConfig true", st, raw)
	}
	other := zoneBody(zone)
	other["zoneConfig"].(map[string]any)["ttl"] = 600
	if st, _, raw := r.tryKeyed(key, other); st != 422 || !strings.Contains(raw, "Idempotency-Key") {
		t.Errorf("the key with another body: %d %s, want 422", st, raw)
	}
	// Remembered across a restart.
	r.c.Stop()
	r.c.Start()
	if st, _, raw := r.tryKeyed(key, zoneBody(zone)); st != 201 || raw != first {
		t.Errorf("the key after a restart: %d %s, want the same 201 %s", st, raw, first)
	}
}
