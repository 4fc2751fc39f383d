package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestCreateZoneRetriesWithItsKey: CreateZone sends an Idempotency-Key
// and sends the create again, with the same key and body, after a
// connection cut before the answer and after a 504; a 409 with
// sameConfig is not sent again and carries SameConfig.
func TestCreateZoneRetriesWithItsKey(t *testing.T) {
	var mu sync.Mutex
	var keys, bodies []string
	step := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		keys, bodies = append(keys, r.Header.Get("Idempotency-Key")), append(bodies, string(b))
		step++
		n := step
		mu.Unlock()
		switch n {
		case 1: // the connection breaks before the answer
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case 2:
			w.WriteHeader(http.StatusGatewayTimeout)
			_, _ = io.WriteString(w, `{"error":"Gateway Timeout","message":"named did not answer addzone"}`)
		default:
			w.Header().Set("Location", "/api/v1/zones/a.test")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"success":true,"message":"Zone a.test created successfully","details":"","zone":{"name":"a.test","zoneType":"primary"}}`)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL, "tok", WithRetries(3, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CreateZone(context.Background(), CreateZone{ZoneName: "a.test", ZoneType: "primary"})
	if err != nil || res.Location != "/api/v1/zones/a.test" {
		t.Fatalf("create: %+v, %v", res, err)
	}
	if len(keys) != 3 || keys[0] == "" || keys[0] != keys[1] || keys[1] != keys[2] || bodies[0] != bodies[2] {
		t.Fatalf("keys %q, bodies %q: want three attempts with one key and one body", keys, bodies)
	}
	// Another create: another key.
	step = 2
	if _, err := c.CreateZone(context.Background(), CreateZone{ZoneName: "a.test", ZoneType: "primary"}); err != nil {
		t.Fatal(err)
	}
	if keys[len(keys)-1] == keys[0] {
		t.Error("a second create reused the first one's key")
	}

	conflict := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusConflict)
		_, _ = io.WriteString(w, `{"error":"Conflict","message":"zone a.test already exists","sameConfig":false}`)
	}))
	defer conflict.Close()
	c2, _ := New(conflict.URL, "tok", WithRetries(3, time.Millisecond, 5*time.Millisecond))
	_, err = c2.CreateZone(context.Background(), CreateZone{ZoneName: "a.test", ZoneType: "primary"})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 409 || e.SameConfig == nil || *e.SameConfig {
		t.Fatalf("409: %#v", err)
	}
}
