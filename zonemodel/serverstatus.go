package zonemodel

// ServerStatus is the parsed output of "rndc status" (package rndc
// parses it).
type ServerStatus struct {
	// Raw is the unparsed text.
	Raw string
	// Version is the "version:" line, e.g. "BIND 9.18.49-1~deb12u3-Debian
	// (Extended Support Version) <id:>".
	Version string
	// BootTime and LastConfigured are BIND's timestamps, as printed.
	BootTime, LastConfigured string
	// NumberOfZones is the leading number of "number of zones:".
	NumberOfZones int
	// DebugLevel is "debug level:".
	DebugLevel int
	// XfersRunning, XfersDeferred and SOAQueries are the transfer counters.
	XfersRunning, XfersDeferred, SOAQueries int
	// QueryLogging is "ON" or "OFF".
	QueryLogging string
	// RecursiveClients is e.g. "0/900/1000".
	RecursiveClients string
	// TCPClients is e.g. "0/150".
	TCPClients string
	// ServerUp is true when the output says "server is up and running".
	ServerUp bool
	// Fields holds every "key: value" line, keyed by the text before ": ".
	Fields map[string]string
}
