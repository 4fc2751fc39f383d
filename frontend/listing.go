package frontend

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ManagedLister lists the zones the API manages, across views.
type ManagedLister interface {
	// ListZones lists the managed zones scope allows (nil: every zone),
	// in name order then view, optionally of one type ("" any), one page
	// at a time: limit zones (0: all) after cursor, with the cursor of
	// the next page ("" at the end) and the total the scope allows.
	// Without views, they are the one service's zones and their cursor a
	// zone name; with views, those of view, or with view "" of every
	// view (the default view's first), each with its view, their cursor
	// "<name>[@<view>]". It reads the zone index only: its error is the
	// index's own, unwrapped (500). Read-only, so idempotent.
	ListZones(scope zonemodel.ZoneScope, view, typ, cursor string, limit int) (page []zonemodel.ManagedZone, next string, total int, err error)
}

// AllZonesLister lists every zone named serves.
type AllZonesLister interface {
	// AllZones lists every zone named serves, in every view (the
	// inventory's snapshot of named's statistics channel), joined with
	// the managed zones of the index (managed, source "api"), in order
	// of name then view, one page at a time: at most limit zones (0:
	// all) after cursor (a ListedZone.Key), those f keeps, with the
	// cursor of the next page ("" after the last) and how many f keeps
	// in all. Errors: no statistics channel is configured (the
	// no-inventory kind: 503), named's statistics cannot be read (the
	// control kind, command "statistics": 503), the index cannot be
	// read (the storage kind: 500). Read-only, so idempotent.
	AllZones(ctx context.Context, f zonemodel.ListFilter, cursor string, limit int) ([]zonemodel.ListedZone, string, int, error)
}
