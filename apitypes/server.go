package apitypes

import "net/http"

// Error is the body of every error answer: the HTTP reason phrase (or
// "Bad Gateway" for a failed control command, which is a 500) and what
// went wrong and why.
type Error struct {
	// Error is the HTTP reason phrase, e.g. "Bad Request".
	Error string `json:"error"`
	// Message says what went wrong and why.
	Message string `json:"message"`
}

// Health is the answer of GET /health.
type Health struct {
	// Status is "healthy".
	Status string `json:"status"`
	// Version is the module's version.
	Version string `json:"version"`
}

// Readiness is the answer of GET /ready: 200 when ready, else 503. Checks
// comes first, as the server has always written it.
type Readiness struct {
	// Checks lists each failed check as "<name>: <detail>".
	Checks []string `json:"checks"`
	// Ready is true when every check passed.
	Ready bool `json:"ready"`
	// ZonesNotLoaded lists, as "<zone>: <why>", the managed primary zones
	// that named does not load, as the last full reconcile found them (it
	// runs at start, after named restarts and on demand). They do not make
	// the API unready: every other zone is served.
	ZonesNotLoaded []string `json:"zonesNotLoaded,omitempty"`
}

// ServerStatus is the answer of GET /server/status: the raw text of rndc
// status and the fields parsed from it.
type ServerStatus struct {
	// Status is rndc status's text.
	Status string `json:"status"`
	// Version is named's version line.
	Version string `json:"version,omitempty"`
	// BootTime is when named started, as it prints it.
	BootTime string `json:"bootTime,omitempty"`
	// LastConfigured is when named last read its configuration.
	LastConfigured string `json:"lastConfigured,omitempty"`
	// NumberOfZones is the number of zones named serves.
	NumberOfZones int `json:"numberOfZones"`
	// DebugLevel is named's debug level.
	DebugLevel int `json:"debugLevel"`
	// XfersRunning is the number of zone transfers running.
	XfersRunning int `json:"xfersRunning"`
	// XfersDeferred is the number of zone transfers deferred.
	XfersDeferred int `json:"xfersDeferred"`
	// SOAQueries is the number of SOA queries in progress.
	SOAQueries int `json:"soaQueriesInProgress"`
	// QueryLogging is "ON" or "OFF".
	QueryLogging string `json:"queryLogging,omitempty"`
	// RecursiveClients is named's recursive clients line.
	RecursiveClients string `json:"recursiveClients,omitempty"`
	// TCPClients is named's TCP clients line.
	TCPClients string `json:"tcpClients,omitempty"`
	// ServerUp is true when named says it is up and running.
	ServerUp bool `json:"serverUp"`
	// Fields holds every "name: value" line of the text.
	Fields map[string]string `json:"fields"`
}

// ReasonPhrase is the Error of an error body for status: net/http's
// StatusText, except where the API's contract (DESIGN.md) names another
// phrase: 413 is "Payload Too Large" (RFC 7231's name; Go says "Request
// Entity Too Large"). Every error body the server writes takes its
// reason phrase from here.
func ReasonPhrase(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "Payload Too Large"
	}
	return http.StatusText(status)
}
