// Package externaldns drives the zone_api external-dns webhook provider
// (http.handlers.zone_api_external_dns) with external-dns's own webhook
// client (sigs.k8s.io/external-dns/provider/webhook, v0.23.0), through the
// real Caddy build, against a real named. It is a Go module of its own so
// that external-dns's large dependency graph stays out of the main
// module's, and the only part of the project built with Go 1.27
// (external-dns v0.23.0 requires it): scripts/test.sh runs it with
// GOTOOLCHAIN=go1.27.3, fetched through the Go module proxy, while the rest
// stays on the machine's Go 1.26.
package externaldns
