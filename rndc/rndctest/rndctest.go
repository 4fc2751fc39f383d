// Package rndctest runs a fake named control channel on a loopback port,
// for unit tests of code that drives named through an rndc.Client, as
// net/http/httptest does for HTTP. The fake speaks the real wire protocol
// (signed messages, nonces, reused connections) and answers each command
// with what the test's function returns.
package rndctest

import (
	"net"
	"sync"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// Server is a fake named control channel.
type Server struct {
	// Addr is the host:port to give rndc.Client.Addr.
	Addr string
	// Key is the key the server signs with and accepts.
	Key rndc.Key

	ln       net.Listener
	answer   func(command string) rndc.Response
	mu       sync.Mutex
	commands []string
	wg       sync.WaitGroup
}

// NewServer starts a fake on 127.0.0.1 that answers every command with
// answer(command), and stops it when the test ends.
func NewServer(tb testing.TB, answer func(command string) rndc.Response) *Server {
	tb.Helper()
	key, err := rndc.NewKey("rndctest-key", "hmac-sha256", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0")
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), Key: key, ln: ln, answer: answer}
	s.wg.Add(1)
	go s.serve()
	tb.Cleanup(s.Close)
	return s
}

func (s *Server) serve() {
	defer s.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer c.Close()
			_ = rndc.ServeConn(c, s.Key, func(command string) rndc.Response {
				s.mu.Lock()
				s.commands = append(s.commands, command)
				s.mu.Unlock()
				return s.answer(command)
			})
		}()
	}
}

// Commands returns the commands received so far, in order.
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

// Close stops accepting connections. Connections in use end when their
// client closes them.
func (s *Server) Close() {
	_ = s.ln.Close()
}
