package reqlog

import (
	"maps"
	"net/http"
	"strconv"
)

// chunkingSize is the most body net/http's HTTP/1 server holds before it
// sends the header (its bufferBeforeChunkingSize): an answer whose body
// is no larger, complete when the handler returns, is sent with a
// Content-Length; a larger one, or one flushed before, chunked.
const chunkingSize = 2048

// hold is a Recorder's answer kept back (Hold): its status and header
// as they were at WriteHeader, and its body while it is small.
type hold struct {
	on     bool
	status int // 0 until WriteHeader
	header http.Header
	body   []byte
}

// Hold keeps the answer written from now on back, while its body is no
// larger than net/http sends with a Content-Length, until Release: the
// handler's answer can then be sent and flushed once it is complete,
// with the Content-Length net/http would have given it, before what is
// done after the handler (a change's audit line, the request's log
// lines and metrics), which the client no longer waits for. A larger
// body, a Flush or an informational status passes through as before.
func (s *Recorder) Hold() { s.hold = hold{on: true} }

// holdHeader keeps WriteHeader's status and the header as it is now (a
// header changed after WriteHeader is not sent, as net/http does); it
// reports false for a status that is not kept (informational).
func (s *Recorder) holdHeader(code int) bool {
	if code < 200 {
		// Informational: sent at once, unless a final status is kept
		// already, after which net/http ignores it too.
		return s.hold.status != 0
	}
	if s.hold.status == 0 && s.ResponseWriter.Header().Get("Trailer") != "" {
		// Trailers are set after the body: an answer that declares them
		// passes through, as it was.
		s.hold.on = false
		return false
	}
	if s.hold.status == 0 {
		s.hold.status = code
		s.hold.header = maps.Clone(s.ResponseWriter.Header())
	}
	return true
}

// holdBody keeps b, unless the body grows past chunkingSize: then what
// was kept is sent (chunked, as net/http would) and the rest passes
// through; it reports whether b was kept.
func (s *Recorder) holdBody(b []byte) bool {
	if s.hold.status == 0 {
		s.holdHeader(http.StatusOK)
	}
	if len(s.hold.body)+len(b) <= chunkingSize {
		s.hold.body = append(s.hold.body, b...)
		return true
	}
	s.pass(false)
	return false
}

// pass sends what is kept and ends the hold; with length, the header
// gets the Content-Length net/http gives a complete small answer.
func (s *Recorder) pass(length bool) {
	h := s.hold
	s.hold = hold{}
	if h.status == 0 {
		return // nothing written
	}
	hdr := s.ResponseWriter.Header()
	clear(hdr)
	maps.Copy(hdr, h.header)
	if length && bodyAllowed(h.status) && hdr.Get("Content-Length") == "" && hdr.Get("Transfer-Encoding") == "" && hdr.Get("Trailer") == "" {
		hdr.Set("Content-Length", strconv.Itoa(len(h.body)))
	}
	s.ResponseWriter.WriteHeader(h.status)
	if len(h.body) > 0 {
		_, _ = s.ResponseWriter.Write(h.body)
	}
}

// Release ends the hold: the answer kept, complete, is sent, and flushed
// when its status is a success (2xx); an answer that was not kept (none
// was written, or it passed through) is left as it is.
func (s *Recorder) Release() {
	if !s.hold.on {
		return
	}
	status := s.hold.status
	s.pass(true)
	if 200 <= status && status < 300 {
		_ = http.NewResponseController(s.ResponseWriter).Flush()
	}
}

// FlushError implements http.ResponseController's flush: what is kept is
// sent first (without a Content-Length: the answer may go on, chunked,
// as net/http sends an answer flushed before its end).
func (s *Recorder) FlushError() error {
	if s.hold.on {
		s.pass(false)
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

// bodyAllowed reports whether an answer of the status has a body (and so
// a Content-Length).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}
