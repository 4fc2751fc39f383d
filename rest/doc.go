// Package rest is the zone API's REST front end: the handlers of the
// /api/v1 routes (API.Routes), which read a request, check its scope,
// call the zone service and encode its answer.
//
// A handler answers a request that succeeds itself and returns the
// failure of one that does not; serve answers it in one place
// (WriteFailure, errors.go), as Caddy's handlers return a
// caddyhttp.Error. The failures come from the one mapping of the zone
// service's errors to REST answers (LifecycleFailure, ServiceFailure,
// RecordFailure, ImportFailure; the PowerDNS API has its own, and reads
// only an import's refusal by the shared gate from here).
//
// Where the files are: server.go (health, ready, server status,
// reconcile), zones.go, modify.go, notify.go (the zone routes),
// discovery.go (every zone named serves, capabilities, adoption), views.go
// (the view a request addresses, the list across views), records.go,
// import.go and importgate.go, idempotency.go (the create's
// Idempotency-Key), catalog.go, whoami.go, bodies.go (the apitypes bodies
// and their conversions to the zone model), scope.go (reads filtered by
// the identity's scope), errors.go and httpjson.go (the answers).
//
// It knows nothing of Caddy nor of the zone service's packages: it
// reaches zones only through the contract of package frontend (the
// one-method interfaces of frontend.ZoneAPIService, in zonemodel values;
// frontend/adapter.REST implements it over the zone service), and package
// module mounts its routes in zone_api's request path (matching,
// authentication, scopes, rate limits, audit line, metrics) and gives it,
// through the fields of API, the zone services of the views (Services),
// the body decoder, the scope checks and the request's identity. Still
// the host's, for now: the change history's and the events' endpoints.
package rest
