// Package apitypes holds the request and response bodies of the zone_api
// REST API (/api/v1), written once for the server (package module), the Go
// client (package client) and the Caddy DNS provider (client/caddydns).
//
// The JSON names are the API's: bindcar-compatible request bodies and the
// answers the served OpenAPI document describes; the drift tests of module
// and client compare these types with that document. The package depends on
// nothing of the server (no net/http server code, no Caddy, no zone logic),
// so a client imports it alone.
//
// The types are wire types only. The server converts a decoded request to
// the zone model's domain types at its front end (for record changes the
// conversion is a Go struct conversion, which costs nothing) and builds the
// answers from the results. Where the Go client and the server once held
// two copies, the copies had drifted; each drift was settled so that the
// bytes on the wire stay what they were: pointer fields where the server
// tells an absent value from zero (SOA timers and serial), omitempty where
// the client left a zero value out of the body it sent (the server's
// decoding ignores omitempty), and the server's field order for answers.
//
// externaldns.go holds another wire's bodies: the external-dns webhook's,
// which are external-dns's own types (no part of the served documents).
//
// Fields tagged `json:"-"` (ETag, Location, NotModified) are no part of a
// body: the Go client fills them from the answer's headers and status.
package apitypes
