package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone lifecycle: ZoneCreator and ZoneRemover are both APIs' (part
// of Service and of ZoneAPIService), ZoneAdopter the zone API's (package
// rest). *zoneservice.Service implements them; frontend/adapter's Zones
// for the front ends mounted in zone_api. Errors are the service's
// (*zonemodel.ServiceError).

// ZoneCreator creates zones: the one create of every front end (the zone
// API's POST /zones, the PowerDNS API's, and, through the same steps,
// SourceImporter's imports and copies). A front end normalises its
// request first (zonemodel.CreateZoneRequest.Normalize: an invalid
// request is its *zonemodel.ValidationError, 400, and never reaches the
// service).
type ZoneCreator interface {
	// Create creates the zone z: a durable write-ahead intent, its file
	// (written exclusively), named's zone (rndc addzone), then its index
	// entry (and catalog member) in one append that marks the intent
	// done. Atomic and crash-safe: a create that fails is undone, one
	// interrupted (a crash, named not answering) is completed or undone
	// by the next operation on the zone or the next reconcile, from what
	// named then reports; nothing named was sent is rolled back.
	//
	// fp is the request's fingerprint (zonemodel.CreateZoneRequest's,
	// carrying an Idempotency-Key's when the request had one; "" for
	// none): when the zone exists and was made with the same non-empty
	// fp, nothing is done and Created.Existed is set (Created.Settled
	// telling what settling an earlier pending intent did). Idempotent
	// only through fp: otherwise a second create of the zone is the
	// exists kind.
	//
	// Errors: the zone exists (the exists kind, 409; SameConfig when it
	// was made by the same body), invalid (400), busy (its lock: 503),
	// named refuses or does not answer (409, 500 "Bad Gateway", 504: the
	// outcome is unknown, and a retry, or the next reconcile, settles
	// it), a hook (the catalog member) fails (the create undone), storage
	// (507 for a full disk, else 500).
	Create(ctx context.Context, z *zonemodel.Zone, fp string) (*zonemodel.Created, error)
}

// ZoneRemover deletes zones.
type ZoneRemover interface {
	// Delete deletes the zone: named's delzone, then, for a zone the API
	// manages, its files, keys and index entry once named's removal is
	// durable (Deleted.Durable false: named has not confirmed it yet; the
	// delete is completed later), crash-safely as Create. A zone the API
	// does not manage is deleted from named only with opts.Unmanaged (the
	// unmanaged kind otherwise: 409); a zone of named.conf never (409),
	// nor the catalog zone (409). Errors also: not found (404), busy,
	// control, outcome unknown (504). Not idempotent: a second delete is
	// 404.
	Delete(ctx context.Context, zone string, opts zonemodel.DeleteOptions) (*zonemodel.Deleted, error)
}

// ZoneAdopter brings zones named serves under management.
type ZoneAdopter interface {
	// Adopt gives a zone of named's new-zone database an index entry and
	// a catalog member, without reloading it or touching its file; with
	// opts.GrantUpdateKey it first grants the update key by modzone.
	// Errors: a zone of named.conf (the named.conf kind, whose Clause and
	// Statement say what to add there: 409), the zone is managed already
	// (exists: 409), the catalog zone, not found, busy, control, outcome
	// unknown (the modzone's), invalid (no update key to grant), storage.
	// Not idempotent: a second adopt is 409.
	Adopt(ctx context.Context, zone string, opts zonemodel.AdoptOptions) (*zonemodel.Adopted, error)
}

// ViewNamer names the view a zone service serves.
type ViewNamer interface {
	// ViewName is the service's view, "" without views. No I/O.
	ViewName() string
}
