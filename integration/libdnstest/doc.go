// Package libdnstest runs libdns's own conformance suite (package
// github.com/libdns/libdns/libdnstest of libdns v1.2.0-alpha.1) against
// the zone_api libdns provider, through the real Caddy build, against a
// real named. It is a Go module of its own so that libdns's pre-release
// stays out of the main module's graph (which has libdns v1.1.1 through
// Caddy).
package libdnstest
