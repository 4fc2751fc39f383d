package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ZoneStateReader reads a zone's state as named and the index tell it
// (the zone API's zone status; the PowerDNS API's ZoneDescriber reads it
// too, with the zone's statement, into one ZoneInfo).
type ZoneStateReader interface {
	// Zone runs `rndc zonestatus` and reads the index entry. A zone
	// named knows but has not loaded has a nil Status and named's reason
	// in Details. Errors: storage (the index: 500), not found (404),
	// control (command "zonestatus"), outcome unknown (504). Read-only,
	// so idempotent.
	Zone(ctx context.Context, zone string) (*zonemodel.ZoneState, error)
}

// CachedZoneReader reads a zone's state from the zone cache.
type CachedZoneReader interface {
	// CachedZone is ZoneStateReader.Zone answered from the zone cache
	// when it holds the zone (asking named nothing; its Status then has
	// neither Raw nor Fields, only its first file, and Details is "");
	// otherwise Zone, whose answer is cached. Errors as Zone's.
	// Read-only, so idempotent.
	CachedZone(ctx context.Context, zone string) (*zonemodel.ZoneState, error)
}

// ZoneDetailer tells a zone's settings and what the API can do with it.
type ZoneDetailer interface {
	// ZoneDetails reads the zone's statement (from the zone cache when
	// it holds it, else `rndc showzone`) in the API's notation, nil when
	// it cannot be read, and works out the zone's capabilities from st
	// (its zonestatus, nil when not loaded), that statement and whether
	// the API manages it, each checked as the operation itself checks
	// it. It never fails: what cannot be read is left out. Read-only.
	ZoneDetails(ctx context.Context, zone string, st *zonemodel.ZoneStatus, managed bool) (*zonemodel.ZoneSettings, zonemodel.Capabilities)
}
