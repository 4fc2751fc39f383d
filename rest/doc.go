// Package rest is the zone API's REST front end: the handlers of the
// /api/v1 routes, which read a request, check its scope, call the zone
// service and encode its answer, and the one mapping of the service's
// errors to REST answers (errors.go: Failure, LifecycleFailure,
// ServiceFailure, RecordFailure), which the PowerDNS front end reads too.
//
// It knows nothing of Caddy: package module mounts it in zone_api's
// request path (authentication, scopes, rate limits, audit line, metrics)
// and gives it what it needs through the fields of its API. It is being
// moved here from module/ (issue 26): the handlers still in module/ call
// these functions.
package rest
