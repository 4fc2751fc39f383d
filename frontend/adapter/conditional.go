package adapter

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ApplyIf applies the changes as one UPDATE whose prerequisites are the
// preconditions (zoneservice's Records.ApplyIf).
func (b Zones) ApplyIf(ctx context.Context, zone string, pre []zonemodel.Precondition, changes []zonemodel.Change) (uint32, uint32, error) {
	r, err := b.records(ctx)
	if err != nil {
		return 0, 0, err
	}
	res, err := r.ApplyIf(ctx, zone, pre, changes)
	if err != nil {
		return 0, 0, recordErr(r, zone, "batch", err)
	}
	return res.OldSerial, res.Serial, nil
}

// Interface guard
var _ frontend.ExternalDNSZones = Zones{}
