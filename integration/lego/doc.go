// Package lego runs lego's own PowerDNS DNS provider (package
// github.com/go-acme/lego/v5/providers/dns/pdns of lego v5.6.0, which
// Traefik uses for DNS-01) against the PowerDNS-compatible API of the
// zone_api handler, through the real Caddy build, against a real named.
// It is a Go module of its own so that lego's dependencies stay out of the
// main module's graph.
package lego
