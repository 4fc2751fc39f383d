package module

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// LocalPrincipal is the identity of in-process calls made through
// LocalTransport, as audit lines name it.
const LocalPrincipal = "zone_api.local"

// localHandlers are the provisioned handlers of this process, oldest
// first: a config reload provisions the new generation before it cleans
// up the old one, so the last is the current one.
var (
	localMu       sync.Mutex
	localHandlers []*Handler
)

func registerLocal(h *Handler) {
	localMu.Lock()
	defer localMu.Unlock()
	localHandlers = append(localHandlers, h)
}

func unregisterLocal(h *Handler) {
	localMu.Lock()
	defer localMu.Unlock()
	for i, x := range localHandlers {
		if x == h {
			localHandlers = append(localHandlers[:i], localHandlers[i+1:]...)
			return
		}
	}
}

func currentLocal() *Handler {
	localMu.Lock()
	defer localMu.Unlock()
	if len(localHandlers) == 0 {
		return nil
	}
	return localHandlers[len(localHandlers)-1]
}

// localCallKey marks a request made by LocalTransport. Only code in this
// process can set it: no HTTP request can carry it.
type localCallKey struct{}

// localIdentity is the identity of a request made by LocalTransport, or
// nil. It may do everything, as the process that holds the handler's
// configuration (and its keys) may.
func localIdentity(r *http.Request) *auth.Identity {
	if v, _ := r.Context().Value(localCallKey{}).(bool); v {
		return &auth.Identity{ID: LocalPrincipal, Mode: "local"}
	}
	return nil
}

// ErrNoLocalHandler is returned by LocalTransport when no zone_api handler
// is provisioned in this process.
var ErrNoLocalHandler = errors.New("no zone_api handler runs in this process: the local form of dns zone_api needs a site with the zone_api directive in the same Caddy")

// LocalTransport returns an http.RoundTripper that serves API requests in
// this process, by the zone_api handler of the current configuration
// (the most recently provisioned one, when several sites have one): no
// socket, no TLS, no token. The request runs through the handler's usual
// path (routing, validation, the zone writers, audit lines naming
// LocalPrincipal) with an identity that may do everything. The Caddy DNS
// provider's local form (`dns zone_api` without an endpoint) uses it, so
// the API's own certificate can come from the BIND it manages.
func LocalTransport() http.RoundTripper { return localTransport{} }

type localTransport struct{}

func (localTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	h := currentLocal()
	if h == nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrNoLocalHandler
	}
	r := req.Clone(context.WithValue(req.Context(), localCallKey{}, true))
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	if r.Body == nil {
		r.Body = http.NoBody
	}
	w := &localResponse{header: http.Header{}}
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
		return nil
	})
	if err := h.ServeHTTP(w, r, next); err != nil {
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

// localResponse collects a response in memory.
type localResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *localResponse) Header() http.Header { return w.header }

func (w *localResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *localResponse) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
