package module

import (
	"context"
	"fmt"
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/frontend/adapter"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/internal/statschannel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// The PowerDNS-compatible API (package powerdns) is mounted by this
// handler when its configuration says `powerdns`: its routes (/api,
// /api/v1, /api/v1/servers/localhost/…) join the handler's route table,
// so they share its configuration of BIND, its authentication (X-API-Key
// is checked by the auth mode as a bearer token is, with the same
// scopes), its rate limits, audit lines and metrics. The package
// translates over the zone service this handler sets up, and maps the
// service's errors to its own answers; the errors this handler answers
// itself on the API's paths are written in its shape (Mount.Error).

// pdnsVersion is the version GET /api/v1/servers/localhost reports:
// PowerDNS clients parse it (octoDNS, the Terraform provider), so it
// starts like PowerDNS's.
const pdnsVersion = "4.9.0-zoneapi-" + Version

// pdnsMountName is the frontend mount name of the PowerDNS API (package
// powerdns registers it).
const pdnsMountName = "powerdns"

// provisionPowerDNS finds the PowerDNS API's mount when the
// configuration enables it.
func (h *Handler) provisionPowerDNS() error {
	h.pdnsMount = nil
	if !h.PowerDNS {
		return nil
	}
	if h.pdnsMount = frontend.Lookup(pdnsMountName); h.pdnsMount == nil {
		return fmt.Errorf("powerdns: this build lacks the PowerDNS API (package github.com/zoneapi/caddy-zoneapi/powerdns)")
	}
	return nil
}

// pdnsRoutes are the PowerDNS API's routes, when enabled.
func (h *Handler) pdnsRoutes() []apirouter.Route {
	if h.pdnsMount == nil {
		return nil
	}
	// The zone service of the default view, set up on first use, its
	// server started (the start-up reconciles).
	zones := func(context.Context) (*zoneservice.Service, error) {
		b, err := h.getBackend()
		if err != nil {
			return nil, err
		}
		b.Start(context.Background(), "")
		return b.Root(), nil
	}
	return apirouter.Mounted(h.pdnsMount, frontend.Options{Zones: adapter.Zones{Service: zones, EnterImport: func(id string) (func(), error) { return h.rest.Imports.EnterFrontend(id) }}, Logger: h.dnsLog, ServerStatistics: statschannel.Server(h.conf.StatsURL),
		Version: pdnsVersion, Denied: h.access().Denied, Allow: h.access().Allow,
		AllowRecords: func(w http.ResponseWriter, r *http.Request, zone string, c []auth.RecordChange) bool {
			return h.access().AllowRecords(w, r, zone, c)
		},
		AllowPrimaries: auth.PrimariesPolicy.Checker(h.conf.PrimaryNets, auth.ViewOf, h.access().Forbid), AllowNotify: auth.NotifyPolicy.Checker(h.conf.NotifyNets, auth.ViewOf, h.access().Forbid)})
}

// isPDNS reports whether the request is one for the PowerDNS API.
func (h *Handler) isPDNS(r *http.Request) bool {
	return h.pdnsMount != nil && h.pdnsMount.Owns(r.URL.Path)
}
