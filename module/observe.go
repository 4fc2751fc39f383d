package module

import (
	"go.uber.org/zap"
)

// logs are the module's loggers: the handler's and its sub-loggers, one
// per target of the log filter, which package reqlog's hooks and request
// lines write to.
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
