package module

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
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
		h := &Handler{ZoneDir: dir,
			RNDC: &RNDCConfig{Key: KeyConfig{Name: "rndc-key", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}}}
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
		return b.svc.History
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

// TestNotRecordedAnswer: a record change named applied whose history
// entry could not be recorded answers 500 "Internal Server Error" (status
// and reason agree; not "Bad Gateway", which says named failed) and says
// that the change was made and is not undone. (Before: 500 "Bad Gateway",
// "record add … failed".)
func TestNotRecordedAnswer(t *testing.T) {
	err := &zoneservice.Error{Kind: zoneservice.ErrNotRecorded, Zone: "a.test", Op: "add",
		Msg: "the change was made, but recording it in the change history failed", Err: history.ErrClosed}
	f := recordFailure(nil, "a.test", "add", err)
	if f.status != http.StatusInternalServerError || (f.reason != "" && f.reason != http.StatusText(f.status)) {
		t.Errorf("status %d reason %q, want 500 Internal Server Error", f.status, f.reason)
	}
	if !strings.Contains(f.message, "named applied the change") || !strings.Contains(f.message, "history: log closed") || strings.Contains(f.message, "failed: the change") {
		t.Errorf("message %q", f.message)
	}
}
