package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The webhook's contract (frontend.ExternalDNSProvider), which Provider
// implements: the webhook's HTTP side (package externaldns/webhook) sees
// only these two calls.

// listing is a zone's endpoints, encoded, by serial, on top of the zone
// service's AXFR snapshot cache (RecordReader.Records): an unchanged zone
// costs one SOA query and no work.
type listing struct {
	serial uint32
	json   []byte // the endpoints as JSON array elements, comma-separated
}

// listings caches each zone's endpoints (ZoneEndpoints); the zero value is
// empty.
type listings struct {
	mu    sync.Mutex
	zones map[string]listing
}

// ZoneEndpoints returns the zone's endpoints as JSON array elements,
// comma-separated (nil when none), from the cache while the zone's serial
// is unchanged.
func (pr *Provider) ZoneEndpoints(ctx context.Context, zone string) ([]byte, error) {
	serial, sets, err := pr.Service.Records(ctx, zone)
	if err != nil {
		return nil, err
	}
	c := &pr.cache
	c.mu.Lock()
	l, ok := c.zones[zone]
	c.mu.Unlock()
	if ok && l.serial == serial {
		return l.json, nil
	}
	var b []byte
	if eps := Endpoints(sets, zone); len(eps) > 0 {
		if b, err = json.Marshal(eps); err != nil {
			return nil, err
		}
		b = bytes.TrimSuffix(bytes.TrimPrefix(b, []byte{'['}), []byte{']'})
	}
	c.mu.Lock()
	if c.zones == nil {
		c.zones = map[string]listing{}
	}
	c.zones[zone] = listing{serial: serial, json: b}
	c.mu.Unlock()
	return b, nil
}

// ApplyChanges plans the changes (Plan: every endpoint checked and turned
// into records before anything is sent; its error is returned as it is),
// then applies each zone's UPDATE in turn (Apply), telling applied of
// each zone changed and the number of its update's records. A zone's
// failure is a *zonemodel.ZoneError, whose Err is a
// *zonemodel.PrerequisiteError when a prerequisite no longer held (the
// conditional apply's, frontend.ConditionalApplier); the
// zones after it are not changed, those before it stay changed.
func (pr *Provider) ApplyChanges(ctx context.Context, ch *Changes, applied func(zone string, changes int)) error {
	plan, err := pr.Plan(ctx, ch)
	if err != nil {
		return err
	}
	for _, zu := range plan {
		if err := pr.Apply(ctx, zu); err != nil {
			return &zonemodel.ZoneError{Zone: zu.Zone, Err: err}
		}
		applied(zu.Zone, len(zu.Changes))
	}
	return nil
}
