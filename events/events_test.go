package events

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// testSecret is a whsec_ secret of 32 bytes.
var testSecret = SecretPrefix + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

// openLog opens a history in a temporary directory.
func openLog(t *testing.T) *history.Log {
	t.Helper()
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// appendChanges appends n records.changed entries, zone by zone in
// turn, and returns them as recorded.
func appendChanges(t *testing.T, l *history.Log, n int, zones ...string) []history.Entry {
	t.Helper()
	var out []history.Entry
	for i := range n {
		es, err := l.Append(history.Entry{
			Zone: zones[i%len(zones)], Type: history.RecordsChanged, Source: history.SourceAPI, Identity: "test",
			Added: []history.RRset{{Name: fmt.Sprintf("r%d.%s.", i, zones[i%len(zones)]), Type: "A", TTL: 60, Records: []string{"192.0.2.1"}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	return out
}

// receiver is a webhook receiver that verifies every delivery with the
// Standard Webhooks reference library and records what it accepted.
type receiver struct {
	t  *testing.T
	wh *standardwebhooks.Webhook

	mu       sync.Mutex
	fail     func(e history.Entry) bool // answer 503 when true
	accepted []history.Entry
	ids      map[string]int // webhook-id → deliveries accepted
	attempts int
	bad      []string
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{t: t, wh: wh, ids: map[string]int{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts++
	if err := rc.wh.Verify(body, r.Header); err != nil {
		rc.bad = append(rc.bad, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var e history.Entry
	if err := json.Unmarshal(body, &e); err != nil {
		rc.bad = append(rc.bad, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if r.Header.Get(HeaderID) != MessageID(e.ID) {
		rc.bad = append(rc.bad, "webhook-id "+r.Header.Get(HeaderID)+" for event "+e.ID)
	}
	if rc.fail != nil && rc.fail(e) {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc.ids[e.ID]++
	rc.accepted = append(rc.accepted, e)
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) setFail(f func(history.Entry) bool) {
	rc.mu.Lock()
	rc.fail = f
	rc.mu.Unlock()
}

func (rc *receiver) snapshot() ([]history.Entry, []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]history.Entry(nil), rc.accepted...), append([]string(nil), rc.bad...)
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkOrder asserts that every entry of want is in got (at least once)
// and that, zone by zone, got's first deliveries come in want's order.
func checkOrder(t *testing.T, want, got []history.Entry) {
	t.Helper()
	seen := map[string]bool{}
	last := map[string]uint64{}
	for _, e := range got {
		if seen[e.ID] {
			continue // a duplicate: at least once
		}
		seen[e.ID] = true
		if e.Seq = mustSeq(t, e.ID); e.Seq < last[e.Zone] {
			t.Errorf("zone %s: event %d after %d", e.Zone, e.Seq, last[e.Zone])
		}
		last[e.Zone] = e.Seq
	}
	for _, e := range want {
		if !seen[e.ID] {
			t.Errorf("event %s (%s) was never delivered", e.ID, e.Zone)
		}
	}
}

func mustSeq(t *testing.T, id string) uint64 {
	n, ok := history.ParseID(id)
	if !ok {
		t.Fatalf("bad id %q", id)
	}
	return n
}

func testHook(url string) Webhook {
	w := Webhook{URL: url, Secret: testSecret, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}
	if err := w.Check(); err != nil {
		panic(err)
	}
	return w
}

// TestSignaturesVerifyWithTheReferenceLibrary signs with Signer and
// verifies with the Standard Webhooks reference library for Go; a
// changed body, id or timestamp is refused.
func TestSignaturesVerifyWithTheReferenceLibrary(t *testing.T) {
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"7","type":"records.changed"}`)
	h := http.Header{}
	s.Sign(h, "evt_7", time.Now(), body)
	if err := wh.Verify(body, h); err != nil {
		t.Fatalf("the reference library refused our signature: %v", err)
	}
	ref, err := wh.Sign("evt_7", time.Unix(1700000000, 0), body)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Signature("evt_7", time.Unix(1700000000, 0), body); got != ref {
		t.Errorf("signature %s, the reference library's %s", got, ref)
	}
	for name, mutate := range map[string]func(http.Header, []byte) []byte{
		"body":      func(h http.Header, b []byte) []byte { return append(b, ' ') },
		"id":        func(h http.Header, b []byte) []byte { h.Set(HeaderID, "evt_8"); return b },
		"timestamp": func(h http.Header, b []byte) []byte { h.Set(HeaderTimestamp, "1"); return b },
	} {
		h2 := h.Clone()
		if wh.Verify(mutate(h2, append([]byte(nil), body...)), h2) == nil {
			t.Errorf("a changed %s still verified", name)
		}
	}
	for _, bad := range []string{"", "secret", "whsec_!!", SecretPrefix + base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := NewSigner(bad); err == nil {
			t.Errorf("NewSigner(%q) accepted", bad)
		}
	}
}

// TestReceiverDownThenUp: the receiver refuses every delivery for a
// while, then takes them: every event arrives, verified by the reference
// library, in order per zone, and the failures were retried.
func TestReceiverDownThenUp(t *testing.T) {
	l := openLog(t)
	rc, srv := newReceiver(t)
	rc.setFail(func(history.Entry) bool { return true })
	d, release, err := Start(l, t.TempDir(), testHook(srv.URL), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release(); stopNow(d) }()
	waitFor(t, "the deliverer to start", func() bool { return d.Status().State == PhaseIdle })
	want := appendChanges(t, l, 60, "a.test", "b.test", "c.test")
	waitFor(t, "failed attempts", func() bool { return d.Status().Attempts >= 3 })
	rc.setFail(nil)
	waitFor(t, "every event", func() bool { got, _ := rc.snapshot(); return len(got) >= len(want) })
	got, bad := rc.snapshot()
	if len(bad) > 0 {
		t.Fatalf("deliveries refused by the reference library: %v", bad)
	}
	checkOrder(t, want, got)
	if st := d.Status(); st.Attempts != 0 || st.LastError != "" || len(st.DeadLetters) != 0 {
		t.Errorf("status after recovery: %+v", st)
	}
}

// newStuckServer is a receiver that signals entered and then waits for
// stuck to be closed before it answers.
func newStuckServer(t *testing.T, stuck <-chan struct{}, entered chan<- struct{}) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestAppendSignatureIsSignature: the poster's signature (a reused HMAC)
// is Signature's, message after message.
func TestAppendSignatureIsSignature(t *testing.T) {
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	mac := s.newMAC()
	for i, payload := range []string{`{"a":1}`, ``, `{"id":"2","zone":"example.com"}`} {
		ts := time.Unix(int64(1700000000+i), 0)
		id := "evt_" + strconv.Itoa(i)
		got := string(s.appendSignature([]byte("x"), mac, id, ts, []byte(payload)))
		if want := "x" + s.Signature(id, ts, []byte(payload)); got != want {
			t.Fatalf("message %d: %s, want %s", i, got, want)
		}
	}
}
