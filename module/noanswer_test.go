package module

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// hungNamed listens like named's control channel and accepts connections
// but never answers, as a stopped (SIGSTOP) or hung named: a command on a
// new connection is never sent, since the nonce handshake gets no reply.
func hungNamed(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return ln.Addr().String()
}

// TestCommandNotSentAnswers504NothingChanged: a control command that
// was never sent because named did not answer in time (the connection's
// handshake timed out) answers 504, saying that nothing was sent and
// nothing changed (before: 500 "Bad Gateway" "rndc delzone failed: …
// i/o timeout", as if named had refused it). A command that was sent and
// not answered is TestLostControlReplyAnswers504's 504 "outcome unknown".
func TestCommandNotSentAnswers504NothingChanged(t *testing.T) {
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{})
	h.conf.RNDCServer = hungNamed(t)
	h.conf.RNDCTimeout = 300 * time.Millisecond
	for _, tc := range []struct{ method, path string }{
		{"DELETE", "/api/v1/zones/hung.test?confirm=unmanaged"},
		{"POST", "/api/v1/zones/hung.test/freeze"},
		{"POST", "/api/v1/zones/hung.test/reload"},
	} {
		w := serveFake(h, tc.method, tc.path, "")
		body := w.Body.String()
		if w.Code != 504 || !strings.Contains(body, `"error":"Gateway Timeout"`) ||
			!strings.Contains(body, "nothing was sent, so nothing was changed") || strings.Contains(body, "unknown") {
			t.Errorf("%s %s with named hung: %d %s; want 504 saying nothing was sent and nothing changed", tc.method, tc.path, w.Code, body)
		}
	}
}
