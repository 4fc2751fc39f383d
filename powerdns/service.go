package powerdns

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/internal/frontmount"
)

// The zone service as this front end sees it, defined where zone_api
// implements it (package internal/frontmount).
type (
	// Service is the zone service.
	Service = frontmount.Service
	// ZoneInfo describes a zone.
	ZoneInfo = frontmount.ZoneInfo
	// ZoneChange changes zone configuration clauses.
	ZoneChange = frontmount.ZoneChange
	// Key is a DNSSEC key.
	Key = frontmount.Key
	// Route is one endpoint.
	Route = frontmount.Route
)

// MountName is the name zone_api mounts this API by (its powerdns
// option).
const MountName = "powerdns"

func init() {
	frontmount.Register(MountName, &frontmount.Mount{
		Routes: func(o frontmount.Options) []frontmount.Route {
			return (&API{Service: o.Service, Version: o.Version, Denied: o.Denied, Allow: o.Allow, AllowRecords: o.AllowRecords, AllowPrimaries: o.AllowPrimaries, AllowNotify: o.AllowNotify}).Routes()
		},
		Owns:     IsPath,
		ZoneName: ZoneName,
		Error: func(w http.ResponseWriter, status int, msg string) {
			WriteError(w, status, "%s", msg)
		},
	})
}
