// Package frontend is the front ends' contract with the zones: Service,
// the zone service as a front end sees it, with what each call does, its
// errors, what is atomic and what is idempotent written in its doc
// comment, and the way a front end serves its routes inside the zone_api
// handler without either importing the other. The front end registers a
// Mount here (from its init function; the module's root package imports
// it), and zone_api, when its configuration names the mount, asks it for
// routes over the zone service it sets up (Options.Zones, a Service;
// package frontend/adapter implements it over package zoneservice, and
// zone_api wires it). The routes then run in zone_api's request path: its
// authentication, scopes, rate limits, audit line and metrics. The
// PowerDNS-compatible API (package powerdns) is mounted this way.
//
// The contract speaks zonemodel and apitypes values only: a front end
// imports this package, apitypes, auth, zonemodel, jsonbody and base
// helpers, never the storage, the control channel, the DNS messages
// (rndc, dnsupdate, zonestore, catalog, history, miekg/dns) or the
// service itself (TestLayering).
package frontend

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Route is one endpoint of a mounted front end.
type Route struct {
	// Method and Template are the http.ServeMux pattern's parts; the zone
	// segment of Template is {name}.
	Method   string
	Template string
	// Action is the scope action the route needs ("" none).
	Action auth.Action
	// Public routes are served without authentication (a CORS
	// preflight, which browsers send without credentials).
	Public bool
	// Op is the zoneapi_zone_operations_total label of a change ("" for
	// reads).
	Op string
	// Handle serves the request; zone is the decoded {name} ("" on routes
	// without one).
	Handle func(w http.ResponseWriter, r *http.Request, zone string)
}

// Options are what a mount builds its routes with.
type Options struct {
	// Zones is the zone service of the default view, set up on first
	// use (the start-up reconcile done): its errors are the service's
	// typed errors, which the front end maps to its own answers. Its
	// imports are admitted through zone_api's gate (too many at once: an
	// *ImportsBusy).
	Zones Service
	// Logger is the DNS log: failed record operations are logged there.
	Logger *zap.Logger
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
	// ServerStatistics reads named's server counters from its statistics
	// channel (/json/v1/server); nil without a statistics_channel.
	ServerStatistics func(ctx context.Context) ([]byte, error)
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
	// Error writes the front end's error body: zone_api writes the
	// errors it answers itself on the front end's paths (authentication,
	// scope, routing) with it.
	Error func(w http.ResponseWriter, status int, message string)
	// Request, when set, prepares a request of the front end before
	// zone_api authenticates it (PowerDNS's X-API-Key as the bearer
	// token).
	Request func(r *http.Request) *http.Request
}

// ImportsBusy is the refusal of an import because too many run at once:
// in all (Status 503) or by one identity (429).
type ImportsBusy struct {
	Status     int
	Message    string
	RetryAfter int
}

func (e *ImportsBusy) Error() string { return e.Message }

// Service is the zone service as a mounted front end sees it: the
// interfaces it embeds, those below and the zone API's own for the
// operations both APIs have (ZoneCreator, ZoneNotifier, ZoneRetransferrer,
// SettingsModifier, SourceImporter, ZoneRemover). Zone names are canonical (lower case, no trailing
// dot) in and out. Every error is the service's own, typed
// (zonemodel.ServiceError and its kinds, zonemodel.ValidationError,
// zonemodel.ConflictError, zonemodel.PreconditionError,
// zonemodel.ErrNoUpdateKey, *ImportsBusy), within a *CallError naming
// the call's zone and record operation: each front end maps the kinds to
// its own answers, once (the statuses the interfaces name are the zone
// API's; powerdns/failure.go maps the same kinds to PowerDNS's). A call
// whose context ends returns promptly; a change it had sent may still be
// applied (the failure then says the outcome is unknown: 504, nothing
// rolled back).
type Service interface {
	ZoneLister
	ZoneDescriber
	RecordReader
	RecordSearcher
	RecordApplier
	ZoneCreator
	SourceImporter
	ZoneRemover
	SettingsModifier
	ZoneNotifier
	ZoneRetransferrer
	KeyLister
	StatisticsReader
	SideFileKeeper
}

// ZoneLister lists the zones.
type ZoneLister interface {
	// ListZones lists the zones the service manages, in name order, with
	// the serials named last reported on its statistics channel when one
	// is configured (HasSerial false otherwise, and for a zone created
	// since or not loaded). It reads the zone index only: errors are the
	// index's (500). Read-only, so idempotent.
	ListZones(ctx context.Context) ([]ZoneInfo, error)
}

// ZoneDescriber describes one zone in one value.
type ZoneDescriber interface {
	// DescribeZone describes one zone: what named reports (type, serial,
	// signed; ZoneStateReader.Zone's status) and its configuration clauses
	// (ZoneDetailer's statement), with its index entry's creation time. Errors: the zone is unknown (404), named's
	// control channel fails or does not answer (500 "Bad Gateway", 504).
	// Read-only, so idempotent.
	DescribeZone(ctx context.Context, zone string) (*ZoneInfo, error)
}

// RecordReader reads a zone's records.
type RecordReader interface {
	// Records reads the zone's RRsets (canonical order) and serial, from
	// one zone transfer: the RRsets are those of that serial. Errors: the
	// zone is unknown (404), record reads are not configured (no update
	// key: 400), the transfer is refused or fails (500 "Bad Gateway").
	// Read-only, so idempotent.
	Records(ctx context.Context, zone string) (uint32, []zonemodel.RRset, error)
}

// RecordSearcher reads zones' records for a search of every zone.
type RecordSearcher interface {
	// SearchRecords reads the zone's RRsets as Records does when
	// match(owner, value) holds for one of its records (the owner name
	// absolute and lower case, the value as in an RRset's Values), and
	// returns none otherwise. A zone read for a search is answered from
	// the service's snapshot cache when current there, and not added to
	// it (a search reads every zone once). Errors: those of Records.
	// Read-only, so idempotent.
	SearchRecords(ctx context.Context, zone string, match func(owner, value string) bool) ([]zonemodel.RRset, error)
}

// RecordApplier changes a zone's records.
type RecordApplier interface {
	// Apply applies the changes in order as one atomic UPDATE with one
	// serial bump, returning the serials before and after: all of them
	// or none. Errors: a change is invalid (400) or breaks a DNS rule
	// (409), the zone is unknown (404), frozen (409), secondary or does
	// not take updates signed with the module's key (400), named does
	// not answer in time (504: applied or not is unknown, nothing rolled
	// back). Not idempotent as such: an add of a record present is a
	// no-op, a delete of one absent too, so a retry of the same changes
	// leaves the same records but may bump the serial again. A replace
	// of the apex SOA RRset with one record sets the zone's SOA in the
	// same UPDATE: its serial when above the zone's, else the next one
	// (named serves no lower serial), so new is the serial named serves.
	Apply(ctx context.Context, zone string, changes []zonemodel.Change) (old, new uint32, err error)
}

// KeyLister reads a zone's DNSSEC keys.
type KeyLister interface {
	// Keys lists the zone's DNSSEC keys (its apex DNSKEY records with
	// the zone key flag). Errors: those of RecordReader.Records.
	// Read-only, so idempotent.
	Keys(ctx context.Context, zone string) ([]Key, error)
}

// StatisticsReader reads named's own state.
type StatisticsReader interface {
	// Statistics returns what named reports about itself (rndc status),
	// name → value, in name order. Errors: the control channel fails
	// (500 "Bad Gateway", 504). Read-only, so idempotent.
	Statistics(ctx context.Context) ([][2]string, error)
}

// SideFileKeeper gives the zone directory's side files.
type SideFileKeeper interface {
	// SideFiles is the zone directory's per-zone side files, where a
	// front end keeps what BIND has no place for: each is replaced
	// atomically under a lock of its own (held across processes) and
	// removed with the zone's other files when the zone is deleted
	// through any front end (zonestore's side files). Errors: the zone
	// directory cannot be opened (500). Nil SideFiles: none kept.
	SideFiles() (SideFiles, error)
}

// SideFiles are a zone directory's side files (the zone store's): kind
// names a front end's (zonemodel.SideKindPowerDNS).
type SideFiles interface {
	ReadSideFile(zone, kind string) ([]byte, bool, error)
	ReadSideFileStamped(zone, kind string) ([]byte, zonemodel.SideFileStamp, bool, error)
	StatSideFile(zone, kind string) (zonemodel.SideFileStamp, bool, error)
	ReplaceSideFile(zone, kind string, data []byte) error
	RemoveSideFile(zone, kind string) error
	SideFileZones(kind string) (map[string]bool, error)
	LockSideFile(ctx context.Context, zone, kind string) (func(), error)
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
	// CheckNames is the zone's check-names clause (fail, warn, ignore),
	// "" when it has none (named's default).
	CheckNames string
	// Signed tells whether the zone is DNSSEC signed.
	Signed bool
	// Catalog is the RFC 9432 catalog zone zone_api keeps the zone in
	// (its catalog option: every zone it creates joins it), "" when
	// none.
	Catalog string
	// Created is when the zone was created (its index entry's; zero for
	// a zone the service does not manage): a side file written for an
	// earlier zone of the name is told apart by it.
	Created time.Time
}

// Signing reports whether the zone is, or is being, DNSSEC signed: its
// dnssec-policy signs it (any policy but none and insecure), or, when it
// has none (keys kept by hand), named reports it secure. A zone given a
// signing policy is signing from that moment, though named's zonestatus
// says "secure: yes" only once the signatures are in; a zone turned
// insecure is unsigning though named may still say secure for a while.
// This is PowerDNS's dnssec flag, which follows the zone's keys as soon
// as they are set.
func (z *ZoneInfo) Signing() bool {
	switch z.DNSSECPolicy {
	case "":
		return z.Signed
	case "none", "insecure":
		return false
	}
	return true
}

// Key is a DNSSEC key of a zone, read from its DNSKEY records.
type Key = zonemodel.DNSKey

// RRset is the records sharing an owner name and a type.
type RRset = zonemodel.RRset

// CallError is a Service call's error with what the call named: the
// zone, the record operation ("read" for Records and Keys, "batch" for
// Apply; "" for the other calls) and the update key the service signs
// record changes with ("" when none is configured), which a front end's
// answer may name. Err is the service's typed error; errors.Is and
// errors.As see through.
type CallError struct {
	Zone, Op, UpdateKey string
	Err                 error
}

func (e *CallError) Error() string { return e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }
