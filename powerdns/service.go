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
// auth mode checks (an Authorization header, when also sent, wins).
func APIKeyAsBearer(r *http.Request) *http.Request {
	key := r.Header.Get("X-API-Key")
	if key == "" || r.Header.Get("Authorization") != "" {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+key)
	return r2
}
