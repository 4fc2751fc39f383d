// Package reqlog logs zone_api's requests and its clients' traffic: a
// request's lines (received at debug, completed at info) and its body at
// debug with secrets redacted (Serve, which also counts the request in
// package apimetrics), the control commands through the rndc client's
// Observe hook, and the control and DNS messages at trace level through
// the clients' wire hooks. Each function takes the logger of its target
// (zone_api::http, zone_api::rndc and so on, the handler's, under its
// log filter), so nothing here is process-wide but the DNS hooks, which
// find their logger in the request's context.
package reqlog

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// Serve serves r by serve, which returns the matched route's template
// (the metrics label), through a Recorder over w: the "request received"
// line at debug on httpLog, the DNS trace logger in r's context
// (WithDNSTrace), the body captured for the debug log (CaptureBody,
// LogBody), then the request counted and timed (apimetrics.ObserveRequest)
// and the "request completed" line at info.
func Serve(httpLog, dnsTrace *zap.Logger, w http.ResponseWriter, r *http.Request, serve func(*Recorder, *http.Request) string) {
	start := time.Now()
	if ce := httpLog.Check(zap.DebugLevel, "request received"); ce != nil {
		ce.Write(
			zap.String("method", r.Method),
			zap.String("uri", r.RequestURI),
			zap.String("proto", r.Proto),
			zap.String("remote_addr", r.RemoteAddr),
			zap.String("user_agent", logsafe.Text(r.UserAgent())),
			zap.Int64("content_length", r.ContentLength),
			zap.Bool("authorization_present", r.Header.Get("Authorization") != ""),
		)
	}
	r = WithDNSTrace(dnsTrace, r)
	body := CaptureBody(httpLog, r)
	rec := &Recorder{ResponseWriter: w}
	route := serve(rec, r)
	LogBody(httpLog, r, body)
	d := time.Since(start)
	apimetrics.ObserveRequest(r.Method, route, rec.Status(), d)
	if ce := httpLog.Check(zap.InfoLevel, "request completed"); ce != nil {
		ce.Write(
			zap.String("method", r.Method),
			zap.String("uri", r.RequestURI),
			zap.Int("status", rec.Status()),
			zap.Float64("duration_ms", float64(d.Microseconds())/1000),
		)
	}
}

// Recorder remembers the status code written through it.
type Recorder struct {
	http.ResponseWriter
	code int
	// ErrorBody, when set, writes the error bodies of the handler's
	// own answers: a mounted front end's shape.
	ErrorBody func(w http.ResponseWriter, status int, message string)
	// hold: a small answer kept back until Release (hold.go).
	hold hold
}

// WriteHeader implements http.ResponseWriter, remembering the first code.
func (s *Recorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	if s.hold.on && s.holdHeader(code) {
		return
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (s *Recorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	if s.hold.on && s.holdBody(b) {
		return len(b), nil
	}
	return s.ResponseWriter.Write(b)
}

// Status is the status code written, 200 when none was.
func (s *Recorder) Status() int {
	if s.code == 0 {
		return http.StatusOK
	}
	return s.code
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *Recorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// ObserveControl returns the rndc client's Observe hook, the one place
// where control commands are counted, timed (apimetrics.ObserveControl)
// and logged on rndcLog: info when one succeeded (debug adds BIND's
// output), error with BIND's text when it failed. Commands on a Quiet
// context (readiness probes, every few seconds) are counted but not
// logged here.
func ObserveControl(rndcLog *zap.Logger) func(context.Context, rndc.CommandEvent) {
	return func(ctx context.Context, e rndc.CommandEvent) {
		apimetrics.ObserveControl(e)
		if ctx.Value(quietKey{}) != nil {
			return
		}
		fields := []zap.Field{zap.String("command", e.Verb)}
		if e.Zone != "" {
			fields = append(fields, zap.String("zone", e.Zone))
		}
		fields = append(fields, zap.Float64("duration_ms", float64(e.Duration.Microseconds())/1000))
		if e.Err != nil {
			rndcLog.Error("control command failed", append(fields, zap.Error(e.Err))...)
			return
		}
		rndcLog.Info("control command executed", fields...)
		if ce := rndcLog.Check(zapcore.DebugLevel, "control command output"); ce != nil {
			ce.Write(append(fields, zap.String("output", e.Output))...)
		}
	}
}

// quietKey marks a context whose control commands ObserveControl counts
// but does not log.
type quietKey struct{}

// Quiet returns ctx marked so that its control commands are not logged.
func Quiet(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

// RNDCTraceHook returns the rndc client's wire hook when trace is on for
// zone_api::rndc (rndcTrace at debug), and nil (no per-message cost)
// otherwise: every control message, with its _ctrl and _data tables, at
// trace level. The client never passes the key or the signature.
func RNDCTraceHook(rndcTrace *zap.Logger) func(string, map[string]any) {
	if ce := rndcTrace.Check(zapcore.DebugLevel, ""); ce == nil {
		return nil
	}
	return func(direction string, msg map[string]any) {
		if ce := rndcTrace.Check(zapcore.DebugLevel, "control message"); ce != nil {
			ce.Write(zap.String("direction", direction), zap.Any("rndc_message", msg))
		}
	}
}

// maxLoggedBody bounds how much of a request body the debug log keeps.
const maxLoggedBody = 64 << 10

// CaptureBody makes r's body copy what the handler reads into a buffer,
// when httpLog would log request bodies (debug) and the method carries
// one. It returns nil otherwise.
func CaptureBody(httpLog *zap.Logger, r *http.Request) *bytes.Buffer {
	if r.Method != http.MethodPost && r.Method != http.MethodPatch && r.Method != http.MethodPut || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if ce := httpLog.Check(zapcore.DebugLevel, "request body"); ce == nil {
		return nil
	}
	buf := new(bytes.Buffer)
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, &logsafe.LimitedWriter{W: buf, N: maxLoggedBody}), r.Body}
	return buf
}

// LogBody writes the captured body at debug, secrets redacted.
func LogBody(httpLog *zap.Logger, r *http.Request, buf *bytes.Buffer) {
	if buf == nil || buf.Len() == 0 {
		return
	}
	httpLog.Debug("request body",
		zap.String("method", r.Method),
		zap.String("uri", r.RequestURI),
		zap.String("body", logsafe.RedactJSON(buf.Bytes())),
	)
}

// dnsTraceKey is the context key of the zone_api::dns trace logger of the
// handler serving a request. The DNS clients are shared by every handler
// (and config generation) with the same dns_server and key, so their
// message hook finds the logger of the request it works for in the
// context, not in a process-wide variable.
type dnsTraceKey struct{}

// WithDNSTrace returns r with the handler's DNS trace logger in its
// context, when trace is on for zone_api::dns (otherwise r as it is, at no
// cost).
func WithDNSTrace(dnsTrace *zap.Logger, r *http.Request) *http.Request {
	if ce := dnsTrace.Check(zapcore.DebugLevel, ""); ce == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), dnsTraceKey{}, dnsTrace))
}

// traceDNS is the DNS clients' message hook: a DNS message at trace level
// on the zone_api::dns logger of the handler whose request sent it.
func traceDNS(ctx context.Context, direction string, m dnsupdate.Message) {
	l, _ := ctx.Value(dnsTraceKey{}).(*zap.Logger)
	if l == nil {
		return
	}
	if ce := l.Check(zapcore.DebugLevel, "dns message"); ce != nil {
		ce.Write(zap.String("direction", direction), zap.String("opcode", m.Opcode()),
			zap.String("rcode", m.Rcode()), zap.String("dns_message", m.String()))
	}
}

// DNSHooks are the DNS clients' hooks: each message traced on the
// zone_api::dns logger of the request that sent it (WithDNSTrace), each
// UPDATE counted (apimetrics.CountDNSUpdate).
func DNSHooks() dnsupdate.Hooks {
	return dnsupdate.Hooks{Message: traceDNS, Update: apimetrics.CountDNSUpdate}
}
