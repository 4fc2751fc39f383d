// Package externaldns drives the zone_api external-dns webhook provider
// (http.handlers.zone_api_external_dns) with external-dns's own webhook
// client (sigs.k8s.io/external-dns/provider/webhook, v0.22.0: v0.23.0 needs
// Go 1.27), through the real Caddy build, against a real named. It is a Go
// module of its own so that external-dns's large dependency graph stays
// out of the main module's.
package externaldns
