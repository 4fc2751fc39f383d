package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// CatalogReader reads the RFC 9432 catalog zone zone_api keeps.
type CatalogReader interface {
	// CatalogMembers lists the catalog zone's members, sorted by zone
	// name then label, read by one zone transfer (the catalog zone is
	// created first if it does not exist yet). Errors: no catalog zone
	// is configured (the service's no-catalog kind), the transfer or the
	// control channel fails (the control kind: 500 "Bad Gateway").
	// Read-only, so idempotent.
	CatalogMembers(ctx context.Context) ([]zonemodel.CatalogMember, error)
}

// CatalogReconciler repairs the catalog zone.
type CatalogReconciler interface {
	// ReconcileCatalog compares the catalog's members with the managed
	// zones (the zone index) and, with fix, repairs it: a member added
	// for each managed zone that lacks one, and removed for each zone
	// that is not managed, each under the zone's lock, in one UPDATE per
	// member (not atomic as a whole: a failure leaves the members
	// changed so far). Without fix it only reports (read-only). Errors:
	// no catalog zone is configured, the index cannot be read (the
	// storage kind: 500), named refuses or does not answer (the control
	// kind). Idempotent: a second reconcile finds nothing to fix.
	ReconcileCatalog(ctx context.Context, fix bool) (*zonemodel.CatalogReport, error)
}
