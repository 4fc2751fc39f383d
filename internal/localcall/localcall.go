// Package localcall carries API requests made inside the process to the
// zone_api handler of the current configuration, with no socket, no TLS
// and no token. The handler (package module) registers itself when it is
// provisioned; the Caddy DNS provider's local form (client/caddydns) sends
// its requests through Transport. Neither imports the other: this package
// is the meeting point, and depends on neither.
package localcall

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Server serves one in-process request. ServeLocal writes the answer to w
// as an HTTP handler would; an error it returns becomes the round trip's
// error.
type Server interface {
	ServeLocal(w http.ResponseWriter, r *http.Request) error
}

// servers are the registered servers of this process, oldest first: a
// config reload provisions the new generation before it cleans up the old
// one, so the last is the current one.
var (
	mu      sync.Mutex
	servers []Server
)

// Register adds s as the current server.
func Register(s Server) {
	mu.Lock()
	defer mu.Unlock()
	servers = append(servers, s)
}

// Unregister removes s; the one registered before it becomes current again
// if s was current.
func Unregister(s Server) {
	mu.Lock()
	defer mu.Unlock()
	for i, x := range servers {
		if x == s {
			servers = append(servers[:i], servers[i+1:]...)
			return
		}
	}
}

// current returns the most recently registered server, or nil.
func current() Server {
	mu.Lock()
	defer mu.Unlock()
	if len(servers) == 0 {
		return nil
	}
	return servers[len(servers)-1]
}

// swap replaces the registered servers and returns the old ones (tests).
func swap(s []Server) []Server {
	mu.Lock()
	defer mu.Unlock()
	old := servers
	servers = s
	return old
}

// callKey marks a request made by Transport. Only code in this process can
// set it: no HTTP request can carry it.
type callKey struct{}

// IsLocal reports whether the request was made in process through
// Transport.
func IsLocal(r *http.Request) bool {
	v, _ := r.Context().Value(callKey{}).(bool)
	return v
}

// ErrNoServer is returned by Transport's round trips when no zone_api
// handler is provisioned in this process.
var ErrNoServer = errors.New("no zone_api handler runs in this process: the local form of dns zone_api needs a site with the zone_api directive in the same Caddy")

// Transport returns an http.RoundTripper that serves requests by the
// current Server, marked so that IsLocal reports them.
func Transport() http.RoundTripper { return transport{} }

type transport struct{}

func (transport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := current()
	if s == nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrNoServer
	}
	r := req.Clone(context.WithValue(req.Context(), callKey{}, true))
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	if r.Body == nil {
		r.Body = http.NoBody
	}
	w := &response{header: http.Header{}}
	if err := s.ServeLocal(w, r); err != nil {
		return nil, err
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(&w.body),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// response collects an answer in memory.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *response) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
