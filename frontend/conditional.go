package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ConditionalApplier changes a zone's records on conditions. Package
// frontend/adapter implements it over the zone service (not a part of
// Service: a front end that needs it asks for it by this interface).
type ConditionalApplier interface {
	// ApplyIf applies the changes in order as one atomic UPDATE with one
	// serial bump, as RecordApplier.Apply does, provided every
	// precondition holds: they are sent as the UPDATE's RFC 2136
	// prerequisites, which named checks atomically with the changes (an
	// RRset exists with exactly these records, zonemodel.RRsetExists; an
	// RRset does not exist, zonemodel.RRsetAbsent). Names and record
	// data are absolute: master-file text whose origin is the root
	// (zonemodel.ParseRootRecord); a change is an add (TTL set), a remove
	// (one record, by its data), a delete (the RRset) or a replace,
	// without Priority. It returns the serials before and after. Errors:
	// a precondition that no longer holds is a
	// *zonemodel.PrerequisiteError with named's rcode (NXRRSET, YXRRSET,
	// NXDOMAIN, YXDOMAIN), nothing changed; a precondition or change that
	// is not valid, a *zonemodel.ValidationError (400), nothing sent; the
	// others are Apply's. Not idempotent: a retry after the changes were
	// applied fails the preconditions they changed.
	ApplyIf(ctx context.Context, zone string, pre []zonemodel.Precondition, changes []zonemodel.Change) (old, new uint32, err error)
}

// ExternalDNSZones is what the external-dns webhook's provider (package
// externaldns/provider) reads and changes zones through: a zone's
// RRsets, and its changes made on the RRsets external-dns read.
type ExternalDNSZones interface {
	RecordReader
	ConditionalApplier
}
