package events

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// sseEvent is one event as a client parses it.
type sseEvent struct {
	id, event string
	entry     history.Entry
}

// readEvents reads n events from an SSE body (skipping comments and the
// retry field).
func readEvents(t *testing.T, sc *bufio.Scanner, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	for len(out) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.id != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			cur.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			cur.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &cur.entry); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
		}
	}
	if len(out) < n {
		t.Fatalf("read %d events, want %d: %v", len(out), n, sc.Err())
	}
	return out
}

// TestStreamResumesFromLastEventID: a client gets the live events; one
// that reconnects with Last-Event-ID gets exactly the events after it,
// the stored ones first; Visible and Filter leave events out; Stop ends
// the stream cleanly.
func TestStreamResumesFromLastEventID(t *testing.T) {
	l := openLog(t)
	appendChanges(t, l, 3, "old.test")
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, ok := AfterFromRequest(r, l)
		if !ok {
			http.Error(w, "bad id", 400)
			return
		}
		s := &Stream{Source: l, After: after, Stop: stop, Heartbeat: 50 * time.Millisecond,
			Filter:  history.Filter{Types: []string{history.RecordsChanged}},
			Visible: func(e history.Entry) (history.Entry, bool) { return e, e.Zone != "hidden.test" }}
		_ = s.Serve(w, r)
	}))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	want := appendChanges(t, l, 6, "a.test", "hidden.test", "b.test")
	got := readEvents(t, sc, 4)
	var visible []history.Entry
	for _, e := range want {
		if e.Zone != "hidden.test" {
			visible = append(visible, e)
		}
	}
	for i, ev := range got {
		if ev.id != visible[i].ID || ev.event != history.RecordsChanged || ev.entry.ID != visible[i].ID || ev.entry.Zone != visible[i].Zone {
			t.Errorf("event %d: %+v, want %s %s", i, ev, visible[i].ID, visible[i].Zone)
		}
	}
	resp.Body.Close()

	// Reconnect after the second event: the third and fourth come from
	// the history, then the live ones.
	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Last-Event-ID", got[1].id)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc = bufio.NewScanner(resp.Body)
	more := appendChanges(t, l, 2, "a.test")
	again := readEvents(t, sc, 4)
	wantIDs := []string{visible[2].ID, visible[3].ID, more[0].ID, more[1].ID}
	for i, ev := range again {
		if ev.id != wantIDs[i] {
			t.Errorf("resumed event %d: id %s, want %s", i, ev.id, wantIDs[i])
		}
	}
	close(stop)
	done := make(chan struct{})
	go func() {
		for sc.Scan() {
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end when Stop was closed")
	}
	resp.Body.Close()

	req.Header.Set("Last-Event-ID", "x1")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 400 {
		t.Errorf("a bad Last-Event-ID: %v %v", resp.StatusCode, err)
	}
}

// TestStreamEndsBeforeUntil: a stream given Until (the server's write
// timeout ahead) ends cleanly by then, with a whole response, instead of
// being cut by the timeout; the client resumes.
func TestStreamEndsBeforeUntil(t *testing.T) {
	l := openLog(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := &Stream{Source: l, After: l.Last(), Until: time.Now().Add(300 * time.Millisecond), Heartbeat: time.Hour}
		_ = s.Serve(w, r)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the stream ended with %v, want a clean end", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream did not end at Until")
	}
}
