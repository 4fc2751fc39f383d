// Package frontend is the front ends' contract with the zones: Service,
// the zone service as a front end sees it, with what each call does, its
// errors, what is atomic and what is idempotent written in its doc
// comment, and the way a front end serves its routes inside the zone_api
// handler without either importing the other. The front end registers a
// Mount here (from its init function; the module's root package imports
// it), and zone_api, when its configuration names the mount, asks it for
// routes over Service, which zone_api implements. The routes then run in
// zone_api's request path: its authentication, scopes, rate limits, audit
// line and metrics. The PowerDNS-compatible API (package powerdns) is
// mounted this way.
//
// It was internal/frontmount. Records and changes are still dnsupdate
// values here; they are to become zonemodel/apitypes values.
package frontend

import (
	"context"
	"net/http"
	"sync"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Route is one endpoint of a mounted front end.
type Route struct {
	// Method and Template are the http.ServeMux pattern's parts; the zone
	// segment of Template is {name}.
	Method   string
	Template string
	// Action is the scope action the route needs ("" none).
	Action auth.Action
	// Op is the zoneapi_zone_operations_total label of a change ("" for
	// reads).
	Op string
	// Handle serves the request; zone is the decoded {name} ("" on routes
	// without one).
	Handle func(w http.ResponseWriter, r *http.Request, zone string)
}

// Options are what a mount builds its routes with.
type Options struct {
	// Service is the zone service.
	Service Service
	// Version is the host's version string.
	Version string
	// Denied is told of every 403 the front end decides itself (a record
	// outside the identity's scope), for the auth log and metric.
	Denied func(r *http.Request, err error)
	// Allow checks that the request's identity may do the action on the
	// zone, for routes whose zone is in the body (zone creation); it
	// answers 403 itself and returns false when not, and names the zone in
	// the audit line either way.
	Allow func(w http.ResponseWriter, r *http.Request, action auth.Action, zone string) bool
	// AllowRecords checks that the request's identity may change the
	// zone's records that changes name (the records action on the zone,
	// and each RRset's name and type): every route that changes records
	// asks it, whatever action the route itself needs. It answers 403
	// itself and returns false when not.
	AllowRecords func(w http.ResponseWriter, r *http.Request, zone string, changes []auth.RecordChange) bool
	// AllowPrimaries checks that the request's identity may name a
	// secondary zone's primaries (they make named transfer from the
	// addresses given): it answers 403 itself and returns false when not.
	AllowPrimaries func(w http.ResponseWriter, r *http.Request, primaries []string) bool
	// AllowNotify checks that the request's identity may name a zone's
	// also-notify servers (named sends NOTIFY messages to the addresses
	// given): it answers 403 itself and returns false when not.
	AllowNotify func(w http.ResponseWriter, r *http.Request, servers []string) bool
}

// Mount is a front end that zone_api can serve.
type Mount struct {
	// Routes builds the routes.
	Routes func(Options) []Route
	// Owns reports whether a request path belongs to the front end
	// (zone_api then answers it even outside /api/v1, with the front end's
	// error shape).
	Owns func(path string) bool
	// ZoneName decodes the {name} segment into a zone name.
	ZoneName func(segment string) string
	// Error writes the front end's error body.
	Error func(w http.ResponseWriter, status int, message string)
}

var (
	mu     sync.Mutex
	mounts = map[string]*Mount{}
)

// Register makes a mount available under name; the last registration wins.
func Register(name string, m *Mount) {
	mu.Lock()
	defer mu.Unlock()
	mounts[name] = m
}

// Lookup returns the mount registered under name, or nil.
func Lookup(name string) *Mount {
	mu.Lock()
	defer mu.Unlock()
	return mounts[name]
}

// Service is the zone service as a mounted front end sees it. Zone names
// are canonical (lower case, no trailing dot). Errors are the service's
// own; Status classifies them.
type Service interface {
	// ListZones lists the zones the service manages, in name order, with
	// the serials named last reported on its statistics channel when one
	// is configured (HasSerial false otherwise, and for a zone created
	// since or not loaded).
	ListZones(ctx context.Context) ([]ZoneInfo, error)
	// Zone describes one zone (what named reports: type, serial, its
	// configuration).
	Zone(ctx context.Context, zone string) (*ZoneInfo, error)
	// Records reads the zone's RRsets (canonical order) and serial.
	Records(ctx context.Context, zone string) (uint32, []dnsupdate.RRset, error)
	// Apply applies the changes in order as one atomic UPDATE with one
	// serial bump, returning the serials before and after.
	Apply(ctx context.Context, zone string, changes []dnsupdate.Change) (old, new uint32, err error)
	// Create creates a zone.
	Create(ctx context.Context, req *zonemodel.CreateZoneRequest) error
	// Import creates the primary zone from a master file, checked as
	// named would check it and added all or nothing (the zone API's
	// import, zoneservice.Service.Import).
	Import(ctx context.Context, zone string, file []byte) error
	// Delete deletes a zone.
	Delete(ctx context.Context, zone string) error
	// Modify changes the zone's configuration clauses the change names.
	Modify(ctx context.Context, zone string, change ZoneChange) error
	// Notify sends NOTIFY for the zone to its secondaries.
	Notify(ctx context.Context, zone string) error
	// Retransfer makes a secondary zone transfer from its primaries now.
	Retransfer(ctx context.Context, zone string) error
	// Keys lists the zone's DNSSEC keys (its DNSKEY records).
	Keys(ctx context.Context, zone string) ([]Key, error)
	// Statistics returns what named reports about itself, name → value.
	Statistics(ctx context.Context) ([][2]string, error)
	// Status classifies an error of the service: how the zone API
	// answers it.
	Status(err error) Failure
}

// Failure is how the zone API answers an error of the service.
type Failure struct {
	// Status is the HTTP status.
	Status int
	// Message is the zone API's message.
	Message string
	// Zone is the zone the failed call named, "" when none.
	Zone string
	// RetryAfter, when not 0, is the seconds to wait before a retry
	// (an answer's Retry-After).
	RetryAfter int
}

// ZoneInfo is what the service tells of a zone.
type ZoneInfo struct {
	// Name is the canonical zone name.
	Name string
	// Type is BIND's zone type: primary or secondary.
	Type string
	// Serial is the zone's SOA serial, when HasSerial.
	Serial    uint32
	HasSerial bool
	// Primaries are the servers a secondary zone transfers from.
	Primaries []string
	// AlsoNotify and AllowTransfer are the zone's clauses, in the zone
	// API's notation ("ip", "ip:port", "key NAME").
	AlsoNotify    []string
	AllowTransfer []string
	// DNSSECPolicy is the zone's dnssec-policy, "" when none.
	DNSSECPolicy string
	// Signed tells whether the zone is DNSSEC signed.
	Signed bool
}

// ZoneChange changes zone configuration clauses; nil leaves one as it
// is.
type ZoneChange struct {
	AlsoNotify    *[]string
	AllowTransfer *[]string
	Primaries     *[]string
	DNSSECPolicy  *string
}

// Key is a DNSSEC key of a zone, read from its DNSKEY records: the zone
// service's.
type Key = zoneservice.DNSKey
