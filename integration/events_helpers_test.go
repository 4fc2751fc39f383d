package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseEvent is one event of the stream as a client reads it.
type sseEvent struct {
	ID, Event string
	Data      []byte
	Entry     changeEntry
	At        time.Time // when the client read it
}

// changeEntry is the part of an event's JSON the tests look at.
type changeEntry struct {
	ID           string `json:"id"`
	Zone         string `json:"zone"`
	Type         string `json:"type"`
	Source       string `json:"source"`
	Identity     string `json:"identity"`
	SerialBefore *uint32
	SerialAfter  *uint32 `json:"serial_after"`
	Added        []struct {
		Name    string   `json:"name"`
		Type    string   `json:"type"`
		Records []string `json:"records"`
	} `json:"added"`
}

// sseClient follows the event stream of one or more caddies at base,
// reconnecting with Last-Event-ID whenever the stream ends (a restart, a
// reload, a crash), and collects every event it reads.
type sseClient struct {
	t      testing.TB
	base   func() string
	token  string
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex
	events      []sseEvent
	lastID      string
	connections int
	ends        int // streams that ended (cleanly or not)
	statuses    []int
}

// followEvents starts a client; lastID is its first Last-Event-ID ("" for
// none: the stream starts with the next change).
func followEvents(t testing.TB, base func() string, token, lastID string) *sseClient {
	ctx, cancel := context.WithCancel(context.Background())
	c := &sseClient{t: t, base: base, token: token, cancel: cancel, done: make(chan struct{}), lastID: lastID}
	go c.run(ctx)
	t.Cleanup(c.stop)
	return c
}

func (c *sseClient) stop() {
	c.cancel()
	<-c.done
}

func (c *sseClient) run(ctx context.Context) {
	defer close(c.done)
	client := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: time.Second}).DialContext}}
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, "GET", c.base()+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		c.mu.Lock()
		if c.lastID != "" {
			req.Header.Set("Last-Event-ID", c.lastID)
		}
		c.mu.Unlock()
		resp, err := client.Do(req)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c.mu.Lock()
		c.connections++
		c.statuses = append(c.statuses, resp.StatusCode)
		c.mu.Unlock()
		if resp.StatusCode != 200 {
			resp.Body.Close()
			time.Sleep(100 * time.Millisecond)
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var cur sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if cur.ID != "" {
					cur.At = time.Now()
					if err := json.Unmarshal(cur.Data, &cur.Entry); err != nil {
						c.t.Errorf("event %s: data %q: %v", cur.ID, cur.Data, err)
					}
					c.mu.Lock()
					c.events = append(c.events, cur)
					c.lastID = cur.ID
					c.mu.Unlock()
				}
				cur = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				cur.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				cur.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				cur.Data = []byte(line[6:])
			}
		}
		resp.Body.Close()
		c.mu.Lock()
		c.ends++
		c.mu.Unlock()
	}
}

// snapshot returns the events read so far.
func (c *sseClient) snapshot() []sseEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sseEvent(nil), c.events...)
}

// waitEvents waits until cond holds for the events read, for up to 30 s.
func (c *sseClient) waitEvents(what string, cond func([]sseEvent) bool) []sseEvent {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs := c.snapshot()
		if cond(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s; have %d events", what, len(evs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
