package powerdns

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Service is what the front end needs of the zone service. Zone names
// are canonical (lower case, no trailing dot). Errors are the service's
// own; Status classifies them.
type Service interface {
	// ListZones lists the zones the service manages, in name order.
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
	// Status classifies an error of the service: the HTTP status the
	// zone API answers it with, and its message.
	Status(err error) (int, string)
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

// Key is a DNSSEC key of a zone, read from its DNSKEY records.
type Key struct {
	// Tag is the key tag (RFC 4034 appendix B).
	Tag uint16
	// Flags are the DNSKEY flags (257: KSK or CSK, 256: ZSK).
	Flags uint16
	// Algorithm is the algorithm's mnemonic, e.g. ECDSAP256SHA256.
	Algorithm string
	// Bits is the key's size.
	Bits int
	// DNSKEY is the record's data in presentation format.
	DNSKEY string
	// DS are DS records of a key-signing key.
	DS []string
}
