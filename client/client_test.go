package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeAPI answers a fixed sequence of statuses, then 200, recording what
// it received. It stands in for the API below the client; integration
// tests use the real one.
type fakeAPI struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header // sent with the scripted statuses
	got      []*http.Request
	bodies   []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, r)
	f.bodies = append(f.bodies, string(b))
	var st int
	if len(f.statuses) > 0 {
		st, f.statuses = f.statuses[0], f.statuses[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if st != 0 {
		for k, v := range f.header {
			w.Header()[k] = v
		}
		w.WriteHeader(st)
		fmt.Fprintf(w, `{"error":%q,"message":"scripted %d"}`, http.StatusText(st), st)
		return
	}
	w.Header().Set("ETag", `"7"`)
	fmt.Fprint(w, `{"success":true,"message":"ok","zone":"example.com","changes":1,"oldSerial":6,"serial":7}`)
}

func newFake(t *testing.T, statuses ...int) (*fakeAPI, *Client) {
	f := &fakeAPI{statuses: statuses}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/api/v1/", "tok", WithRetries(3, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestRetriesOnRetryableStatuses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int
		wantErr  int // 0: success
		tries    int
	}{
		{"429 then ok", []int{429}, 0, 2},
		{"502 503 then ok", []int{502, 503}, 0, 3},
		{"gives up after retries", []int{503, 503, 503, 503, 503}, 503, 4},
		{"500 is not retried", []int{500}, 500, 1},
		{"409 is not retried", []int{409}, 409, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := newFake(t, tc.statuses...)
			res, err := c.Batch(context.Background(), "example.com.", []Change{{Op: OpAdd, Name: "a", Type: "TXT", Value: "x"}})
			if tc.wantErr == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if res.Serial != 7 || res.ETag != `"7"` {
					t.Errorf("result %+v", res)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || e.StatusCode != tc.wantErr || e.Message != fmt.Sprintf("scripted %d", tc.wantErr) || e.Reason != http.StatusText(tc.wantErr) {
					t.Fatalf("err = %#v, want status %d with the body's message", err, tc.wantErr)
				}
			}
			if len(f.got) != tc.tries {
				t.Errorf("%d requests, want %d", len(f.got), tc.tries)
			}
			for i, r := range f.got {
				if r.URL.Path != "/api/v1/zones/example.com/records" || r.Method != http.MethodPatch {
					t.Errorf("request %d: %s %s", i, r.Method, r.URL.Path)
				}
				if r.Header.Get("Authorization") != "Bearer tok" {
					t.Errorf("request %d: Authorization %q", i, r.Header.Get("Authorization"))
				}
				if f.bodies[i] != `{"changes":[{"op":"add","name":"a","type":"TXT","value":"x"}]}` {
					t.Errorf("request %d: body %s", i, f.bodies[i])
				}
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{now.Add(2 * time.Second).Format(http.TimeFormat), 2 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
		{"-1", 0, false},
	} {
		got, ok := retryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// A Retry-After longer than the cap is not waited for: the error comes
// back at once, carrying the server's wish.
func TestRetryAfterOverCapReturnsError(t *testing.T) {
	f, c := newFake(t, 429, 429)
	f.header = http.Header{"Retry-After": {"3600"}}
	_, err := c.Batch(context.Background(), "example.com", []Change{{Op: OpDelete, Name: "a", Type: "TXT"}})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 429 || e.RetryAfter != time.Hour {
		t.Fatalf("err = %#v", err)
	}
	if len(f.got) != 1 {
		t.Errorf("%d requests, want 1", len(f.got))
	}
}

// A Retry-After within the cap is honoured.
func TestRetryAfterHonoured(t *testing.T) {
	f, c := newFake(t, 503)
	f.header = http.Header{"Retry-After": {"1"}}
	var waits []time.Duration
	c.waitHook = func(d time.Duration) { waits = append(waits, d) }
	if _, err := c.Batch(context.Background(), "example.com", []Change{{Op: OpDelete, Name: "a", Type: "TXT"}}); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 1 || waits[0] != time.Second {
		t.Errorf("waited %v, want once the Retry-After of 1s", waits)
	}
}

func TestContextCancelsBackoff(t *testing.T) {
	f, c := newFake(t, 503, 503, 503)
	f.header = http.Header{"Retry-After": {"20"}}
	ctx, cancel := context.WithCancel(context.Background())
	c.waitHook = func(d time.Duration) {
		if d != 20*time.Second {
			t.Errorf("waiting %v, want the Retry-After of 20s", d)
		}
		cancel() // while the client waits
	}
	_, err := c.Batch(ctx, "example.com", []Change{{Op: OpDelete, Name: "a", Type: "TXT"}})
	if StatusCode(err) != 503 {
		t.Fatalf("err = %v, want the 503", err)
	}
}

func TestIfMatchAndQuery(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()
	if _, err := c.AddRecord(ctx, "example.com", Record{Name: "www", Type: "A", Value: "192.0.2.1"}, IfMatch(2026112501)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListRecords(ctx, "example.com.", ListRecordsOptions{Name: "www", Type: "A", Limit: 5, Cursor: "abc", IfNoneMatch: `"9"`}); err != nil {
		t.Fatal(err)
	}
	if got := f.got[0].Header.Get("If-Match"); got != `"2026112501"` {
		t.Errorf("If-Match %q", got)
	}
	if got := f.got[0].Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := f.got[1].URL.RawQuery; got != "cursor=abc&limit=5&name=www&type=A" {
		t.Errorf("query %q", got)
	}
	if got := f.got[1].Header.Get("If-None-Match"); got != `"9"` {
		t.Errorf("If-None-Match %q", got)
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://dns.example.com", "https://dns.example.com"},
		{"https://dns.example.com/", "https://dns.example.com"},
		{"https://dns.example.com/api/v1", "https://dns.example.com"},
		{"http://127.0.0.1:8080/prefix/api/v1/", "http://127.0.0.1:8080/prefix"},
	} {
		c, err := New(tc.in, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.base.String(); got != tc.want {
			t.Errorf("New(%q) base %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "dns.example.com", "ftp://x", "http://"} {
		if _, err := New(bad, ""); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

// Pagination follows nextCursor until it is empty.
func TestAllZonesPages(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		cur := r.URL.Query().Get("cursor")
		next := map[string]string{"": "p2", "p2": "p3", "p3": ""}[cur]
		page := ZonePage{Items: []ZoneEntry{{Name: "z" + cur + ".example", Type: "primary"}}, Count: 1, Total: 3, NextCursor: next}
		_ = json.NewEncoder(w).Encode(page)
	}))
	defer srv.Close()
	c, _ := New(srv.URL, "tok")
	var names []string
	for z, err := range c.AllZones(context.Background(), ListZonesOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, z.Name)
	}
	if fmt.Sprint(names) != "[z.example zp2.example zp3.example]" || calls.Load() != 3 {
		t.Errorf("names %v after %d calls", names, calls.Load())
	}
}

// One client serves many goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	f, c := newFake(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			_, err := c.AddRecord(context.Background(), "example.com", Record{Name: fmt.Sprint("n", i), Type: "TXT", Value: "v"})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(f.got) != 16 {
		t.Errorf("%d requests", len(f.got))
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	}))
	defer srv.Close()
	c, _ := New(srv.URL, "tok")
	_, err := c.GetZone(context.Background(), "example.com")
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 500 || e.Message != "upstream exploded" {
		t.Fatalf("err = %#v", err)
	}
}

// TestInView: a client InView names the view on every zone and record
// request (keeping the other parameters), and on nothing else; the
// client it came from names none.
func TestInView(t *testing.T) {
	f, c := newFake(t)
	ctx := context.Background()
	v := c.InView("internal")
	_, _ = v.GetZone(ctx, "example.com")
	_, _ = v.ListRecords(ctx, "example.com", ListRecordsOptions{Type: "A", Limit: 5})
	_, _ = v.ServerStatus(ctx)
	_, _ = c.GetZone(ctx, "example.com")
	want := []string{"view=internal", "limit=5&type=A&view=internal", "", ""}
	if len(f.got) != len(want) {
		t.Fatalf("%d requests", len(f.got))
	}
	for i, w := range want {
		if got := f.got[i].URL.RawQuery; got != w {
			t.Errorf("request %d (%s): query %q, want %q", i, f.got[i].URL.Path, got, w)
		}
	}
}
