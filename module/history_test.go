package module

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestHistoryAcrossGenerations: a config reload (the new generation
// provisioned, then the old one cleaned up while its requests are still in
// flight) keeps the change history open: the old generation's request
// records its change in the same Log the new generation uses. A request in
// flight of a generation cleaned up keeps the Log open even when no other
// generation holds it (the new config turns the history off), until it
// finishes. (Before: the old generation's Cleanup closed the Log as soon
// as the new one had not yet resolved its backend, and TestSoak's record
// changes during reloads failed with "history: log closed".)
func TestHistoryAcrossGenerations(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	dir := t.TempDir()
	gen := func(off bool) *Handler {
		h := &Handler{Options: config.Options{ZoneDir: dir,
			RNDC: &config.RNDCConfig{Key: config.KeyConfig{Name: "rndc-key", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}}}}
		if off {
			h.History = &HistoryConfig{Off: true}
		}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		return h
	}
	logOf := func(h *Handler) *history.Log {
		t.Helper()
		b, err := h.getBackend()
		if err != nil {
			t.Fatal(err)
		}
		return b.Root().History
	}
	entry := history.Entry{Zone: "example.test", Type: history.ZoneCreated, Source: history.SourceAPI}
	appendOK := func(l *history.Log, when string) {
		t.Helper()
		if _, err := l.Append(entry); err != nil {
			t.Fatalf("append %s: %v", when, err)
		}
	}

	one := gen(false)
	l := logOf(one)
	if l == nil {
		t.Fatal("no history")
	}
	one.gen.enter() // a request of the old generation, in flight
	two := gen(false)
	if err := one.Cleanup(); err != nil {
		t.Fatal(err)
	}
	appendOK(l, "by the old generation's request after its Cleanup")
	one.gen.leave()
	appendOK(l, "after the old generation's last request")
	if l2 := logOf(two); l2 != l {
		t.Error("the new generation opened another Log")
	}

	two.gen.enter()
	off := gen(true) // the next config turns the history off
	if logOf(off) != nil {
		t.Error("history off, but the generation has one")
	}
	if err := two.Cleanup(); err != nil {
		t.Fatal(err)
	}
	appendOK(l, "by a request in flight of a generation cleaned up, no other holding the history")
	two.gen.leave()
	if _, err := l.Append(entry); !errors.Is(err, history.ErrClosed) {
		t.Errorf("append once no generation holds the history: %v, want ErrClosed", err)
	}
	if err := off.Cleanup(); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryFailureAnswers: with a change history that cannot be
// written (a closed Log), a record change is answered as made (201: named
// applied it) and /api/v1/ready answers 503 naming history_writable, so
// that a probe reports what the answers do not. (Before: the add answered
// 500 and the readiness knew nothing of the history.)
func TestHistoryFailureAnswers(t *testing.T) {
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{"status": {Text: testdata(t, "status.txt")}})
	h.conf.DNSServer = dnstest.NewServer(t, map[string]string{"rec.test": recZone}).Addr
	b, err := h.getBackend()
	if err != nil {
		t.Fatal(err)
	}
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	b.Root().History = l
	serve := func(method, path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		return w
	}
	if w := serve("POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"192.0.2.7"}`); w.Code != http.StatusCreated {
		t.Errorf("add with the history failing: %d %s, want 201", w.Code, w.Body)
	}
	if w := serve("GET", "/api/v1/ready", ""); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "history_writable: history: log closed") {
		t.Errorf("ready with the history failing: %d %s, want 503 naming history_writable", w.Code, w.Body)
	}
	b.Root().History = nil
	if w := serve("GET", "/api/v1/ready", ""); w.Code != http.StatusOK {
		t.Errorf("ready without a history: %d %s", w.Code, w.Body)
	}
}
