package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
)

// tryKeyed is crashRig.try for a create with an Idempotency-Key.
func (r *crashRig) tryKeyed(key string, body any) (int, map[string]any, string) {
	return r.tryWith("POST", "/api/v1/zones", body, http.Header{"Idempotency-Key": {`"` + key + `"`}})
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

// TestGoClientCreateRetriesThrough504: the Go client's CreateZone, sent
// while named is stopped (SIGSTOP), gets 504s, sends the create again
// with its Idempotency-Key, and once named resumes returns the zone
// (201); the zone is served, listed and its file kept.
func TestGoClientCreateRetriesThrough504(t *testing.T) {
	r := newCrashRig(t, "2s")
	const zone = "goclient-retry.test"
	r.warmPool()
	cont := stopNamed(t, r)
	rec := &recordingTransport{}
	c, err := client.New(r.c.Base, testToken, client.WithRetries(30, 200*time.Millisecond, time.Second),
		client.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	// named resumes once an attempt was answered 504 (it resumed after
	// a fixed 3 s: a first attempt slower than 1 s under load then met
	// named running again, was answered 201 and the test failed).
	resumed := make(chan struct{})
	go func() {
		defer close(resumed)
		defer cont()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			rec.mu.Lock()
			got504 := slices.Contains(rec.statuses, 504)
			rec.mu.Unlock()
			if got504 {
				return
			}
		}
	}()
	defer func() { <-resumed }() // before cleanup's cont
	serial := uint32(2026112501)
	res, err := c.CreateZone(context.Background(), client.CreateZone{
		ZoneName: zone, ZoneType: "primary",
		ZoneConfig: &client.ZoneConfig{
			TTL:           3600,
			SOA:           &client.SOA{PrimaryNS: "ns1." + zone + ".", AdminEmail: "hostmaster." + zone + ".", Serial: &serial},
			NameServers:   []string{"ns1." + zone + "."},
			NameServerIPs: map[string]string{"ns1." + zone + ".": "192.0.2.53"},
		},
	})
	if err != nil || res.Zone == nil || res.Zone.Name != zone {
		t.Fatalf("CreateZone through a stopped named: %+v, %v", res, err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Contains(rec.statuses, 504) || rec.statuses[len(rec.statuses)-1] != 201 || len(slices.Compact(slices.Clone(rec.keys))) != 1 || rec.keys[0] == "" {
		t.Fatalf("attempts: statuses %v, keys %q; want a 504, then 201, one key", rec.statuses, rec.keys)
	}
	t.Logf("attempts: %v", rec.statuses)
	listed, served, files := r.state([]string{zone})
	if !listed[zone] || !served[zone] || !files[zone] {
		t.Fatalf("listed %v served %v file %v", listed, served, files)
	}
	if soa := query(t, r.ns, zone, dns.TypeSOA); len(answers(soa, dns.TypeSOA)) != 1 {
		t.Fatalf("named does not answer the zone's SOA: %v", soa)
	}
}

// recordingTransport records the Idempotency-Key and the status of each
// request it sends.
type recordingTransport struct {
	mu       sync.Mutex
	keys     []string
	statuses []int
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.keys = append(rt.keys, req.Header.Get("Idempotency-Key"))
	if err != nil {
		rt.statuses = append(rt.statuses, 0)
	} else {
		rt.statuses = append(rt.statuses, resp.StatusCode)
	}
	return resp, err
}
