package powerdns

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// The zone service as this front end sees it, defined where zone_api
// implements it (package frontend).
type (
	// Service is the zone service.
	Service = frontend.Service
	// ZoneInfo describes a zone.
	ZoneInfo = frontend.ZoneInfo
	// ZoneChange changes zone configuration clauses.
	ZoneChange = frontend.ZoneChange
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
			return (&API{Service: o.Service, Version: o.Version, Denied: o.Denied, Allow: o.Allow, AllowRecords: o.AllowRecords, AllowPrimaries: o.AllowPrimaries, AllowNotify: o.AllowNotify}).Routes()
		},
		Owns:     IsPath,
		ZoneName: ZoneName,
		Error: func(w http.ResponseWriter, status int, msg string) {
			WriteError(w, status, "%s", msg)
		},
	})
}
