package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone API's record operations (package rest), implemented by
// zoneservice's Records, the zone service's record concern
// (RecordReader and RecordApplier are the PowerDNS API's, over it too).
// Every change is one RFC 2136 UPDATE signed with the update key, atomic
// (all of it or nothing), applied by the zone's writer after the
// changes already queued, and recorded in the change history before it
// returns. ifSerial, when set, makes it conditional on the zone's serial
// (*zonemodel.PreconditionError otherwise: 412). Errors: a
// *zonemodel.ValidationError (400), a *zonemodel.ConflictError (a DNS
// rule: 409), zonemodel.ErrNoUpdateKey (no key: 400), a
// *zonemodel.ServiceError with a record kind (frozen 409, not primary or
// update refused 400, not found 404, signature or rcode 500 "Bad
// Gateway", outcome unknown 504: applied or not is unknown, nothing
// rolled back). No change is idempotent by itself: an add of a record
// present and a removal of one absent are no-ops, but a retry may bump
// the serial again.

// RecordAdder adds records.
type RecordAdder interface {
	// AddRecord adds one record; ChangeResult.StoredRecord(0) is it as
	// stored.
	AddRecord(ctx context.Context, zone string, rec zonemodel.Record, ifSerial *uint32) (*zonemodel.ChangeResult, error)
}

// RecordRemover removes records.
type RecordRemover interface {
	// RemoveRecord removes one record, or a whole RRset.
	RemoveRecord(ctx context.Context, zone string, rm zonemodel.Removal, ifSerial *uint32) (*zonemodel.ChangeResult, error)
}

// RecordReplacer replaces a record's data.
type RecordReplacer interface {
	// ReplaceRecord replaces one record's data; zonemodel.ErrRecordNotFound
	// (404) when the record to replace is not in the zone.
	// ChangeResult.StoredRecord(0) is the new record as stored.
	ReplaceRecord(ctx context.Context, zone string, rp zonemodel.Replacement, ifSerial *uint32) (*zonemodel.ChangeResult, error)
}

// ChangeApplier applies batches of record changes.
type ChangeApplier interface {
	// ApplyChanges applies the changes in order, in one UPDATE.
	ApplyChanges(ctx context.Context, zone string, changes []zonemodel.Change, ifSerial *uint32) (*zonemodel.ChangeResult, error)
}

// RecordPager reads a zone's RRsets a page at a time.
type RecordPager interface {
	// RecordPage reads the zone (a zone transfer, or a serial-keyed
	// cache of one) and returns one page of its RRsets in canonical
	// order, opt's filters applied before the page is cut, the serial
	// they are of and the next page's cursor ("" on the last). Errors:
	// no update key (400), a cursor not this API's (400), the zone
	// unknown (404), the transfer refused or failed (500 "Bad
	// Gateway"). Read-only, so idempotent.
	RecordPage(ctx context.Context, zone string, opt zonemodel.ListOptions) (serial uint32, sets []zonemodel.RRset, next string, err error)
}

// ZoneFileReader reads a zone as master-file text.
type ZoneFileReader interface {
	// ZoneFile reads the zone as RecordPage does and returns its serial
	// and its master-file text ($ORIGIN, then one record per line with
	// absolute names, SOA first), rendered when text is called. Errors
	// as RecordPage's. Read-only, so idempotent.
	ZoneFile(ctx context.Context, zone string) (serial uint32, text func() []byte, err error)
}
