package apirouter

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestChangeRequestIDLookedUpOnce: a change's request id, which its
// history entry (the actor) and its audit line both carry, is looked up
// once per request: Caddy's {http.request.uuid} goes through the
// replacer's providers and sets the access log's uuid field at each
// lookup.
func TestChangeRequestIDLookedUpOnce(t *testing.T) {
	var lookups int
	var actor zonemodel.Actor
	var audited []string
	rr := New([]Route{{Method: http.MethodPost, Template: Prefix + "/reconcile", Op: "reconcile",
		Handle: func(w http.ResponseWriter, r *http.Request, _ Params) {
			actor = zonemodel.ActorOf(r.Context())
			w.WriteHeader(http.StatusNoContent)
		}}}, Host{
		Authenticate: func(_ http.ResponseWriter, r *http.Request) (*http.Request, bool) { return r, true },
		Access:       func() *auth.RequestGuard { return &auth.RequestGuard{} },
		Limits:       func() *auth.RequestGuard { return nil },
		Audit: func(_ *http.Request, action string, status int, requestID string) {
			audited = append(audited, requestID)
		},
		WriteError: func(w http.ResponseWriter, status int, format string, args ...any) { w.WriteHeader(status) },
	})
	repl := caddy.NewReplacer()
	repl.Map(func(key string) (any, bool) {
		if key == "http.request.uuid" {
			lookups++
			return "1b4e28ba-2fa1-11d2-883f-0016d3cca427", true
		}
		return nil, false
	})
	r := httptest.NewRequest(http.MethodPost, Prefix+"/reconcile", nil)
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	w := httptest.NewRecorder()
	rr.Serve(&reqlog.Recorder{ResponseWriter: w}, r)
	if w.Code != http.StatusNoContent {
		t.Fatalf("status %d", w.Code)
	}
	if actor.RequestID != "1b4e28ba-2fa1-11d2-883f-0016d3cca427" || len(audited) != 1 || audited[0] != actor.RequestID {
		t.Fatalf("actor's request id %q, audit lines' %q", actor.RequestID, audited)
	}
	if lookups != 1 {
		t.Errorf("the request id was looked up %d times, want once", lookups)
	}
}

// TestRoutePatternNotBuiltPerRequest: the matched route's pattern (the
// request's Pattern, the expensive-read limit's key) and the metrics
// label are not concatenated again for each request.
func TestRoutePatternNotBuiltPerRequest(t *testing.T) {
	rr := New([]Route{{Method: http.MethodPost, Template: Prefix + "/zones/{name}/records/reconcile"}}, Host{})
	rt, _, _ := rr.Match(httptest.NewRequest(http.MethodPost, Prefix+"/zones/example.com/records/reconcile", nil))
	if rt == nil {
		t.Fatal("no route matched")
	}
	var pattern string
	if n := testing.AllocsPerRun(100, func() { pattern = rt.Pattern() }); n != 0 {
		t.Errorf("Pattern allocates %v times per call", n)
	}
	if pattern != "POST "+Prefix+"/zones/{name}/records/reconcile" {
		t.Errorf("pattern %q", pattern)
	}
}

// TestChangeAnswerLeavesBeforeItsAuditLine: a change's successful answer
// with a small body (one net/http sends with a Content-Length) or none
// reaches the client, complete, while its audit line is still being
// written (the audit here waits for the client to have read the answer),
// and it is the answer the same handler gives on a read route, which is
// not held (status, header lines, body). An answer too large for a
// Content-Length (chunked) and an error still leave after the line, as
// they did. Before, every answer was sent only once the handler had
// returned, after the audit line: the client waited for it.
func TestChangeAnswerLeavesBeforeItsAuditLine(t *testing.T) {
	handle := func(w http.ResponseWriter, r *http.Request, p Params) {
		switch p.Name {
		case "small":
			w.Header().Set("Location", Prefix+"/x/small")
			rest.WriteJSON(w, http.StatusCreated, map[string]string{"message": "Record added to zone small"})
			w.Header().Set("X-Late", "not sent") // after WriteHeader: not sent, as before
		case "none":
			w.WriteHeader(http.StatusNoContent)
		case "large":
			rest.WriteJSON(w, http.StatusOK, map[string]string{"details": strings.Repeat("d", 5000)})
		case "empty":
			w.WriteHeader(http.StatusOK)
		case "error":
			rest.WriteError(w, http.StatusConflict, "exists")
		case "patch": // the PowerDNS PATCH's 204, which flushes itself
			w.Header().Set("X-PDNS-New-Serial", "2")
			w.WriteHeader(http.StatusNoContent)
			_ = http.NewResponseController(w).Flush()
		case "flushed": // a body flushed before its end: chunked, as before
			rest.WriteJSON(w, http.StatusOK, map[string]string{"message": "part"})
			_ = http.NewResponseController(w).Flush()
			_, _ = w.Write([]byte("more\n"))
		}
	}
	// One channel per name, made before the server starts and never
	// reassigned: the Audit of one request cannot see another's.
	received := map[string]chan struct{}{}
	for _, n := range []string{"small", "none", "large", "empty", "error", "patch", "flushed"} {
		received[n] = make(chan struct{})
	}
	var late atomic.Int32
	rr := New([]Route{
		{Method: http.MethodPost, Template: Prefix + "/x/{name}", Op: "record_add", Handle: handle},
		{Method: http.MethodGet, Template: Prefix + "/x/{name}", Handle: handle},
	}, Host{
		Authenticate: func(_ http.ResponseWriter, r *http.Request) (*http.Request, bool) { return r, true },
		Access:       func() *auth.RequestGuard { return &auth.RequestGuard{} },
		Limits:       func() *auth.RequestGuard { return nil },
		Audit: func(r *http.Request, _ string, _ int, _ string) {
			if name := path.Base(r.URL.Path); name == "large" || name == "error" || name == "flushed" {
				return // not flushed: answered after the line, as before
			}
			select {
			case <-received[path.Base(r.URL.Path)]:
			case <-time.After(5 * time.Second):
				late.Add(1)
			}
		},
		WriteError: func(w http.ResponseWriter, status int, format string, args ...any) { w.WriteHeader(status) },
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rr.Serve(&reqlog.Recorder{ResponseWriter: w}, r)
	}))
	defer srv.Close()
	// raw sends a request on a connection of its own and returns the
	// answer's bytes as they came, its Date line taken out.
	raw := func(method, name string) string {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "%s %s/x/%s HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n", method, Prefix, name)
		var got bytes.Buffer
		resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(c, &got)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Fatal(err)
		}
		if method == http.MethodPost {
			close(received[name])
		}
		return got.String()
	}
	// same: the answer's status line, its header lines but Date in any
	// order (a Content-Length set before the answer is flushed comes
	// among the handler's header lines, where net/http writes the one it
	// computes after them) and its body as sent.
	same := func(a, b string) bool {
		lines := func(s string) (string, []string, string) {
			head, body, _ := strings.Cut(s, "\r\n\r\n")
			ls := strings.Split(head, "\r\n")
			hs := slices.DeleteFunc(ls[1:], func(l string) bool { return strings.HasPrefix(l, "Date: ") })
			slices.Sort(hs)
			return ls[0], hs, body
		}
		as, ah, ab := lines(a)
		bs, bh, bb := lines(b)
		return as == bs && slices.Equal(ah, bh) && ab == bb
	}
	for _, name := range []string{"small", "none", "large", "empty", "error", "patch", "flushed"} {
		read := raw(http.MethodGet, name)
		changed := raw(http.MethodPost, name)
		if late.Load() > 0 {
			t.Fatalf("%s: the answer was read only after its audit line", name)
		}
		if !same(changed, read) {
			t.Errorf("%s: the change's answer\n%q\nthe same answer unheld\n%q", name, changed, read)
		}
		if name == "small" && !strings.Contains(changed, "Content-Length: ") {
			t.Errorf("small: no Content-Length: %q", changed)
		}
	}
}
