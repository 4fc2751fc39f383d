// Package auth holds the zone API's authentication modes and its
// authorization scopes.
//
// A mode is a Caddy guest module in the zone_api.auth namespace (picked
// in the Caddyfile by `auth <mode> {…}` inside the zone_api block): it
// turns a bearer token into an Identity, which carries the principal's
// name and its Grant, the scopes it may act in. The modes of the default
// build are basic (the service specification's default: any well-formed
// token, full access), static (named tokens kept as SHA-256 hashes) and
// jwt (signed tokens checked offline against a JWKS). Token review
// against the Kubernetes API lives in auth/k8stokenreview, which only
// builds that ask for it import.
//
// Scopes are checked by the zone_api handler before any disk or BIND
// work; this package says what is allowed and, when something is not,
// what was missing. So does ServerPolicy for the server lists a zone
// names (a secondary's primaries, also-notify servers), which need more
// than the zones action: the operator's allowed_primaries and
// allowed_notify networks, or the server action.
package auth
