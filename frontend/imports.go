package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The zone API's imports and copies (package rest), implemented by
// *zoneservice.Service; SourceImporter is the PowerDNS API's too (part of
// Service, whose adapter admits each import through zone_api's gate
// first: too many at once is an *ImportsBusy, 429 or 503). An import
// creates the primary zone as ZoneCreator.Create does, all or nothing and
// crash-safely, from records checked as named would check them
// (named-checkzone when installed). fp is the request's fingerprint: a
// retry of the import that made the zone answers Imported.Existed.
// Errors: those of Create; a file named would refuse (the invalid kind
// with a *zonemodel.FileError naming its line: 400); a zone over the
// limits (too large: 413); a source that fails (source, transfer
// refused: 502) or does not answer (source timeout: 504); for a copy,
// the zone copied unknown (404). Not idempotent but through fp.

// SourceImporter imports a zone from a master file or a transfer.
type SourceImporter interface {
	// Import creates zone from src (exactly one of a file and a server
	// to transfer from).
	Import(ctx context.Context, zone string, src *zonemodel.ImportSource, fp string) (*zonemodel.Imported, error)
}

// ZoneCopier copies a zone the service manages.
type ZoneCopier interface {
	// Copy creates zone to with the records of zone from (its names
	// renamed).
	Copy(ctx context.Context, from, to, fp string) (*zonemodel.Imported, error)
}

// ImportPreviewer runs an import's dry run.
type ImportPreviewer interface {
	// PreviewImport does everything Import does before it creates the
	// zone (the zone known not to exist, the source read, the checks)
	// and returns the records the zone would have; nothing is written
	// and named is not asked to add the zone. Errors as Import's.
	// Read-only, so idempotent.
	PreviewImport(ctx context.Context, zone string, src *zonemodel.ImportSource, fp string) (*zonemodel.Previewed, error)
}

// CopyPreviewer runs a copy's dry run.
type CopyPreviewer interface {
	// PreviewCopy is Copy's dry run, as PreviewImport is Import's.
	PreviewCopy(ctx context.Context, from, to, fp string) (*zonemodel.Previewed, error)
}
