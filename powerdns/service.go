package powerdns

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone service as this front end sees it (package frontend), which
// zone_api gives it (Options.Zones).
type (
	// Service is the zone service.
	Service = frontend.Service
	// ZoneInfo describes a zone.
	ZoneInfo = frontend.ZoneInfo
	// ZoneChange changes zone configuration clauses.
	ZoneChange = zonemodel.SettingsChange
	// Key is a DNSSEC key.
	Key = frontend.Key
	// Route is one endpoint.
	Route = frontend.Route
)

// MountName is the name zone_api mounts this API by (its powerdns
// option).
const MountName = "powerdns"

func init() {
	frontend.Register(MountName, &frontend.Mount{
		Routes: func(o frontend.Options) []frontend.Route {
			return (&API{Service: o.Zones, Logger: o.Logger, Version: o.Version, Denied: o.Denied, Allow: o.Allow, AllowRecords: o.AllowRecords, AllowPrimaries: o.AllowPrimaries, AllowNotify: o.AllowNotify, ServerStatistics: o.ServerStatistics}).Routes()
		},
		Owns:     IsPath,
		ZoneName: ZoneName,
		Error:    moduleError,
		Request:  APIKeyAsBearer,
	})
}

// moduleError writes an error zone_api answers itself on this API's paths
// (authentication, scopes, routing) in PowerDNS's shape, with PowerDNS's
// words for a request without credentials.
func moduleError(w http.ResponseWriter, status int, msg string) {
	if msg == auth.MsgMissingHeader {
		msg = "Missing X-API-Key header (or Authorization: Bearer <token>)"
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	WriteError(w, status, "%s", msg)
}

// APIKeyAsBearer makes a request's X-API-Key header the bearer token the
// auth mode checks (an Authorization header, when also sent, wins). The
// request given is left as it is (Caddy's access log reads it); the one
// returned has a header map of its own, the header added, and shares the
// rest, which nothing on the request path changes in place: a Clone deep
// copied the URL and every header value as well, on every PowerDNS API
// request (8 allocations; 5 now, BenchmarkAPIKeyAsBearer). The values are
// shared capped at their length, so that an Add to either header appends
// to an array of its own.
func APIKeyAsBearer(r *http.Request) *http.Request {
	key := r.Header.Get("X-Api-Key") // X-API-Key in its canonical form, not made again per request
	if key == "" || r.Header.Get("Authorization") != "" {
		return r
	}
	h := make(http.Header, len(r.Header)+1)
	for k, v := range r.Header {
		h[k] = v[:len(v):len(v)]
	}
	h["Authorization"] = []string{"Bearer " + key}
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = h
	return r2
}
