package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone API's zone lifecycle (package rest), implemented by
// *zoneservice.Service; ZoneRemover is the PowerDNS API's too (part of
// Service), ZoneCreator its create. Errors are the service's (*zonemodel.ServiceError).

// ZoneMaker creates zones from a normalised create request.
type ZoneMaker interface {
	// Create creates the zone: a durable intent, its file, named's
	// addzone, its index entry (and catalog member), crash-safely (a
	// create interrupted is completed or undone by the next reconcile).
	// fp is the request's fingerprint (zonemodel.CreateZoneRequest's,
	// carrying an Idempotency-Key's when the request had one): when the
	// zone exists and was made with the same fp, nothing is done and
	// Created.Existed is set. Errors: the zone exists otherwise (409,
	// SameConfig when it was made by the same body), invalid (400), busy
	// (503), named refuses or does not answer (409, 500 "Bad Gateway",
	// 504: the outcome is unknown, a retry completes it), storage (507
	// for a full disk, else 500). Idempotent only through fp.
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
