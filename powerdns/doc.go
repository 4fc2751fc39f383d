// Package powerdns is a PowerDNS-compatible front end over the zone
// service: it serves the PowerDNS Authoritative HTTP API (the 5.x OpenAPI
// document's paths, bodies, status codes and {"error": "…"} bodies) under
// /api/v1/servers/localhost/…, so that PowerDNS's clients (lego and so
// Traefik, external-dns --provider=pdns, cert-manager-webhook-pdns,
// octoDNS, DNSControl, Terraform, PowerDNS-Admin) manage BIND unchanged.
//
// It translates and nothing else: a PowerDNS request becomes a call of the
// zone service (Service), and the answer a PowerDNS body. A PATCH of
// RRsets becomes one list of changes applied as one atomic RFC 2136
// UPDATE with one serial bump. No zone logic lives here, and the package
// imports neither miekg/dns nor Caddy.
//
// The zone_api handler mounts the routes (Routes) when its configuration
// enables the PowerDNS API, so that both APIs share one site, one
// configuration of BIND, and one authentication: the X-API-Key header is
// checked by the configured auth mode exactly like a bearer token, with
// the same scopes, rate limits, audit line and metrics.
//
// What maps onto BIND and what is refused (422) is listed in
// docs/powerdns.md.
package powerdns
