package events

import (
	"bufio"
	"context"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countConns counts the connections a test server accepts.
func countConns(srv *httptest.Server) *atomic.Int64 {
	var n atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}

// TestPosterMessages: the poster's messages are what Go's client sent
// (method, path and query, the signature headers, content type, user
// agent, basic authentication from the URL's user information), all on
// one kept-alive connection; a receiver's 5xx, a redirect and a body too
// long to skip are failures or a new connection, as they should be.
func TestPosterMessages(t *testing.T) {
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	var status atomic.Int64
	status.Store(204)
	var bodies atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, pass, _ := r.BasicAuth()
		ts, _ := strconv.ParseInt(r.Header.Get(HeaderTimestamp), 10, 64)
		switch {
		case r.Method != "POST" || r.URL.RequestURI() != "/hook?x=1" || user != "u" || pass != "p w":
			t.Errorf("request %s %s, user %q pass %q", r.Method, r.URL.RequestURI(), user, pass)
		case r.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(r.Header.Get("User-Agent"), "zoneapi/"):
			t.Errorf("headers %v", r.Header)
		case r.Header.Get(HeaderSignature) != s.Signature(r.Header.Get(HeaderID), time.Unix(ts, 0), body):
			t.Errorf("signature %q of %s", r.Header.Get(HeaderSignature), body)
		}
		bodies.Add(1)
		switch st := int(status.Load()); st {
		case 302:
			http.Redirect(w, r, "/elsewhere", st)
		case 299:
			w.WriteHeader(200)
			w.Write([]byte(strings.Repeat("x", 100<<10))) // more than is read
		default:
			w.WriteHeader(st)
		}
	}))
	conns := countConns(srv)
	srv.Start()
	defer srv.Close()
	p, err := newPoster(strings.Replace(srv.URL, "http://", "http://u:p%20w@", 1)+"/hook?x=1", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	ctx := context.Background()
	for i := range 20 {
		if err := p.post(ctx, s, "evt_"+strconv.Itoa(i), []byte(`{"id":"`+strconv.Itoa(i)+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("20 messages took %d connections, want 1", n)
	}
	status.Store(500)
	if err := p.post(ctx, s, "evt_x", []byte(`{}`)); err == nil || err.Error() != "the receiver answered 500 Internal Server Error" {
		t.Fatalf("500: %v", err)
	}
	status.Store(302)
	if err := p.post(ctx, s, "evt_x", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "302") {
		t.Fatalf("302: %v", err)
	}
	status.Store(299)
	if err := p.post(ctx, s, "evt_x", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	status.Store(200)
	if err := p.post(ctx, s, "evt_y", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2 (a new one after the body not read whole)", n)
	}
	if n := bodies.Load(); n != 24 {
		t.Fatalf("the receiver got %d messages, want 24", n)
	}
}

// TestPosterIdleConnectionClosed: a receiver that closes a kept-alive
// connection while it is idle (without saying so) does not fail the
// next message: it is sent again on a new connection at once.
func TestPosterIdleConnectionClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var got atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// One message per connection, then a close without
			// "Connection: close".
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err == nil {
				io.Copy(io.Discard, req.Body)
				got.Add(1)
				c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
			}
			time.Sleep(10 * time.Millisecond)
			c.Close()
		}
	}()
	s, _ := NewSigner(testSecret)
	p, err := newPoster("http://"+ln.Addr().String()+"/", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for i := range 5 {
		if err := p.post(context.Background(), s, "evt_1", []byte(`{}`)); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		time.Sleep(50 * time.Millisecond) // the receiver has closed it
	}
	if n := got.Load(); n != 5 {
		t.Fatalf("the receiver got %d messages, want 5", n)
	}
}

// TestPosterTimeoutAndTLS: an attempt ends at the timeout (the next
// goes on a new connection) and when its context ends; https works.
func TestPosterTimeoutAndTLS(t *testing.T) {
	var slow atomic.Bool
	// A slow receiver answers after 15 s, or once the test ends.
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			select {
			case <-release:
			case <-time.After(15 * time.Second):
			}
		}
		w.WriteHeader(204)
	}))
	conns := countConns(srv)
	srv.StartTLS()
	defer srv.Close()
	defer close(release)
	s, _ := NewSigner(testSecret)
	// The first attempt (a TLS handshake under the race detector, on a
	// loaded machine) is not the one timed.
	p, err := newPoster(srv.URL+"/", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	p.tls.RootCAs = pool
	ctx := context.Background()
	if err := p.post(ctx, s, "evt_1", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	p.timeout = 300 * time.Millisecond
	slow.Store(true)
	start := time.Now()
	if err := p.post(ctx, s, "evt_2", []byte(`{}`)); err == nil {
		t.Fatal("a receiver slower than the timeout: no error")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the attempt took %s with a timeout of 300ms", d)
	}
	p.timeout = 10 * time.Second
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := p.post(cctx, s, "evt_3", []byte(`{}`)); err == nil {
		t.Fatal("an attempt whose context ended: no error")
	}
	slow.Store(false)
	if err := p.post(ctx, s, "evt_4", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections, want 3 (one per attempt cut short, and the first)", n)
	}
}
