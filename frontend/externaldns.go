package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// ExternalDNSProvider is the external-dns webhook's provider over the
// zones its configuration names, as external-dns's webhook server sits on
// its provider.Provider: the webhook's HTTP side (package
// externaldns/webhook) translates the protocol onto it, and the
// zone_api_external_dns handler (package externaldns) builds it (package
// externaldns/provider) over ExternalDNSZones, this contract's records and
// conditional apply.
type ExternalDNSProvider interface {
	// ZoneEndpoints returns the zone's RRsets of the types external-dns
	// manages (A, AAAA, CNAME, TXT, SRV, NS but the apex's, PTR, MX,
	// NAPTR, CAA) as endpoints, in the order of RecordReader.Records'
	// RRsets (DNSSEC canonical order of names, then type number),
	// JSON-encoded as the comma-separated
	// elements of an array (nil when none), read from one zone transfer
	// and kept while the zone's serial is unchanged (an unchanged zone
	// costs one SOA query). Errors: those of RecordReader.Records.
	// Read-only, so idempotent.
	ZoneEndpoints(ctx context.Context, zone string) ([]byte, error)
	// ApplyChanges checks every endpoint of the changes and plans one
	// RFC 2136 UPDATE per zone before anything is sent: an endpoint that
	// is invalid or outside the zones fails the whole call, nothing
	// changed (its error names the endpoint, e.g. "create[0]: …"). Then
	// it applies each zone's UPDATE in the order of the configured zones,
	// atomically per zone (all its changes or none), telling applied of
	// each zone changed and the number of its update's records. The
	// UPDATE's prerequisites are the updateOld RRsets exactly as
	// external-dns read them and, for creates, that the RRset does not
	// exist: a zone changed meanwhile fails with a *zonemodel.ZoneError
	// whose Err is a *zonemodel.PrerequisiteError; a DNS rule with a
	// *zonemodel.ConflictError; other failures are the service's. The
	// zones before a failed one stay changed, those after it are not
	// tried. Not idempotent as a whole: a retry of applied updates or
	// creates fails their prerequisites; a retried delete changes
	// nothing.
	ApplyChanges(ctx context.Context, changes *apitypes.ExternalDNSChanges, applied func(zone string, changes int)) error
}
