package module

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

// logs are the module's loggers: the handler's and its sub-loggers, and
// the hooks through which the rndc and DNS clients log.
type logs struct {
	logger    *zap.Logger // http.handlers.zone_api: zone operations
	httpLog   *zap.Logger // .http: request details and completions
	authLog   *zap.Logger // .auth: token validation
	rndcLog   *zap.Logger // .rndc: control commands and their output
	rndcTrace *zap.Logger // .rndc.trace: control-channel messages
	dnsLog    *zap.Logger // .dns: record changes
	dnsTrace  *zap.Logger // .dns.trace: DNS messages
}

// setLoggers sets the module's logger and its sub-loggers.
func (h *logs) setLoggers(l *zap.Logger) {
	h.logger = l
	h.httpLog = l.Named("http")
	h.authLog = l.Named("auth")
	h.rndcLog = l.Named("rndc")
	h.rndcTrace = h.rndcLog.Named("trace")
	h.dnsLog = l.Named("dns")
	h.dnsTrace = h.dnsLog.Named("trace")
}

// observeControl is the rndc client's Observe hook, the one place where
// control commands are counted, timed and logged: info when one succeeded
// (debug adds BIND's output), error with BIND's text when it failed.
// Commands on a quiet context (readiness probes, every few seconds) are
// counted but not logged here.
func (h *logs) observeControl(ctx context.Context, e rndc.CommandEvent) {
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
		h.rndcLog.Error("control command failed", append(fields, zap.Error(e.Err))...)
		return
	}
	h.rndcLog.Info("control command executed", fields...)
	if ce := h.rndcLog.Check(zapcore.DebugLevel, "control command output"); ce != nil {
		ce.Write(append(fields, zap.String("output", e.Output))...)
	}
}

// quietKey marks a context whose control commands observeControl counts
// but does not log.
type quietKey struct{}

// quiet returns ctx marked so that its control commands are not logged.
func quiet(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

// rndcTraceHook returns the rndc client's wire hook when trace is on for
// zone_api::rndc, and nil (no per-message cost) otherwise.
func (h *logs) rndcTraceHook() func(string, map[string]any) {
	if ce := h.rndcTrace.Check(zapcore.DebugLevel, ""); ce == nil {
		return nil
	}
	return h.traceRNDC
}

// traceRNDC is the rndc client's wire hook: every control message, with
// its _ctrl and _data tables, at trace level. The client never passes the
// key or the signature.
func (h *logs) traceRNDC(direction string, msg map[string]any) {
	if ce := h.rndcTrace.Check(zapcore.DebugLevel, "control message"); ce != nil {
		ce.Write(zap.String("direction", direction), zap.Any("rndc_message", msg))
	}
}

// maxLoggedBody bounds how much of a request body the debug log keeps.
const maxLoggedBody = 64 << 10

// captureBody makes r's body copy what the handler reads into a buffer,
// when the http logger would log request bodies (debug) and the method
// carries one. It returns nil otherwise.
func (h *logs) captureBody(r *http.Request) *bytes.Buffer {
	if r.Method != http.MethodPost && r.Method != http.MethodPatch && r.Method != http.MethodPut || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if ce := h.httpLog.Check(zapcore.DebugLevel, "request body"); ce == nil {
		return nil
	}
	buf := new(bytes.Buffer)
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, &logsafe.LimitedWriter{W: buf, N: maxLoggedBody}), r.Body}
	return buf
}

// logBody writes the captured body at debug, secrets redacted.
func (h *logs) logBody(r *http.Request, buf *bytes.Buffer) {
	if buf == nil || buf.Len() == 0 {
		return
	}
	h.httpLog.Debug("request body",
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

// withDNSTrace returns r with the handler's DNS trace logger in its
// context, when trace is on for zone_api::dns (otherwise r as it is, at no
// cost).
func (h *logs) withDNSTrace(r *http.Request) *http.Request {
	if ce := h.dnsTrace.Check(zapcore.DebugLevel, ""); ce == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), dnsTraceKey{}, h.dnsTrace))
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

// countDNSUpdate counts one UPDATE by its answer.
func countDNSUpdate(rcode int, d time.Duration) { apimetrics.CountDNSUpdate(rcode, d) }
