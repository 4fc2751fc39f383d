package powerdns

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Backend is the Service this API runs on over the zone service that
// zone_api gives it (its default view's): each method is one call of the
// zone service, and its errors are the service's, with the zone and the
// record operation they came from (opError), for failureOf.
type Backend struct {
	// Zones returns the zone service, set up on first use.
	Zones func(ctx context.Context) (*zoneservice.Service, error)
	// EnterImport, when set, admits an import by identity among those
	// running at once (zone_api's gate), returning its release.
	EnterImport func(identity string) (release func(), err error)
}

func (b Backend) svc(ctx context.Context) (*zoneservice.Service, error) {
	return b.Zones(ctx)
}

// ListZones lists the zones with the serials named last reported.
func (b Backend) ListZones(ctx context.Context) ([]ZoneInfo, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	entries, _, _, err := s.ListZones("", "", 0)
	if err != nil {
		return nil, err
	}
	// The serials named last reported (the statistics channel, when
	// configured): a PowerDNS zone list carries each zone's.
	serials := s.Serials(ctx)
	out := make([]ZoneInfo, len(entries))
	for i, e := range entries {
		out[i] = ZoneInfo{Name: e.Name, Type: e.Type, Created: e.Created, Catalog: catalogOf(s)}
		out[i].Serial, out[i].HasSerial = serials[e.Name]
	}
	return out, nil
}

// Zone describes one zone: what named reports of it and its statement.
func (b Backend) Zone(ctx context.Context, zone string) (*ZoneInfo, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	z := &ZoneInfo{Name: zone, Type: zonemodel.TypePrimary}
	zs, err := s.Zone(ctx, zone)
	switch {
	case err != nil:
		return nil, &opError{zone: zone, err: err}
	case zs.Status != nil:
		// A zone named knows but has not loaded (a secondary before
		// its first transfer) has no serial yet.
		st := zs.Status
		z.Type, z.Serial, z.HasSerial, z.Signed = st.Type, st.Serial, st.HasSerial, st.Secure
	}
	if zs.Managed {
		z.Created, z.Catalog = zs.Entry.Created, catalogOf(s)
	}
	if zc, err := s.ZoneStatement(ctx, zone); err == nil {
		cfg := zoneservice.SettingsOf(zc)
		z.Type = cfg.Type
		z.Primaries, z.AlsoNotify, z.AllowTransfer, z.DNSSECPolicy = cfg.Primaries, cfg.AlsoNotify, cfg.AllowTransfer, cfg.DNSSECPolicy
		z.CheckNames = cfg.Options["check-names"]
	}
	if z.Type == "secondary" || z.Type == "slave" {
		z.Type = zonemodel.TypeSecondary
	} else {
		z.Type = zonemodel.TypePrimary
	}
	return z, nil
}

// recordErr is an error of a record operation.
func recordErr(s *zoneservice.Service, zone, op string, err error) error {
	return &opError{zone: zone, op: op, updateKey: s.UpdateKey, err: err}
}

// Records reads the zone's RRsets and serial.
func (b Backend) Records(ctx context.Context, zone string) (uint32, []dnsupdate.RRset, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return 0, nil, err
	}
	snap, err := s.Snapshot(ctx, zone)
	if err != nil {
		return 0, nil, recordErr(s, zone, "read", err)
	}
	return snap.Serial(), snap.RRsets(), nil
}

// Apply applies the changes as one UPDATE.
func (b Backend) Apply(ctx context.Context, zone string, changes []dnsupdate.Change) (uint32, uint32, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return 0, 0, err
	}
	res, err := s.ApplyChanges(ctx, zone, changes, nil)
	if err != nil {
		return 0, 0, recordErr(s, zone, "batch", err)
	}
	return res.OldSerial, res.Serial, nil
}

// Create creates a zone.
func (b Backend) Create(ctx context.Context, req *zonemodel.CreateZoneRequest) error {
	zone, err := req.Normalize(time.Now())
	if err != nil {
		return err
	}
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Create(ctx, zone, ""); err != nil {
		return &opError{zone: zone.Name, err: err}
	}
	return nil
}

// Import creates the primary zone from a master file.
func (b Backend) Import(ctx context.Context, zone string, file []byte) error {
	if b.EnterImport != nil {
		release, err := b.EnterImport(zoneservice.ActorOf(ctx).Identity)
		if err != nil {
			return &opError{zone: zone, err: err}
		}
		defer release()
	}
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Import(ctx, zone, &zoneservice.ImportSource{File: file}, ""); err != nil {
		return &opError{zone: zone, err: err}
	}
	return nil
}

// Delete deletes a zone; PowerDNS's clients cannot confirm the delete of
// a zone the API does not manage, so such a delete is refused.
func (b Backend) Delete(ctx context.Context, zone string) error {
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Delete(ctx, zone, zoneservice.DeleteOptions{}); err != nil {
		return &opError{zone: zone, err: err}
	}
	return nil
}

// Modify changes the zone's clauses the change names.
func (b Backend) Modify(ctx context.Context, zone string, c ZoneChange) error {
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if c.AllowTransfer != nil && s.UpdateKey != "" {
		// The API reads zones by AXFR signed with its key: a list set
		// through ALLOW-AXFR-FROM keeps admitting it.
		grant := "key " + s.UpdateKey
		if !slices.Contains(*c.AllowTransfer, grant) {
			v := append(slices.Clone(*c.AllowTransfer), grant)
			c.AllowTransfer = &v
		}
	}
	req := zoneservice.SettingsChange{AlsoNotify: c.AlsoNotify, AllowTransfer: c.AllowTransfer, Primaries: c.Primaries, DNSSECPolicy: c.DNSSECPolicy, CheckNames: c.CheckNames}
	if _, err := s.Modify(ctx, zone, &req); err != nil {
		return &opError{zone: zone, err: err}
	}
	return nil
}

// Notify sends NOTIFY for the zone.
func (b Backend) Notify(ctx context.Context, zone string) error {
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Notify(ctx, zone); err != nil {
		return &opError{zone: zone, err: err}
	}
	return nil
}

// Retransfer makes a secondary zone transfer now.
func (b Backend) Retransfer(ctx context.Context, zone string) error {
	s, err := b.svc(ctx)
	if err != nil {
		return err
	}
	if _, err := s.Retransfer(ctx, zone); err != nil {
		return &opError{zone: zone, err: err}
	}
	return nil
}

// Keys lists the zone's DNSSEC keys.
func (b Backend) Keys(ctx context.Context, zone string) ([]Key, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := s.Keys(ctx, zone)
	if err != nil {
		return nil, recordErr(s, zone, "read", err)
	}
	return keys, nil
}

// Statistics returns what named reports about itself, in name order.
func (b Backend) Statistics(ctx context.Context) ([][2]string, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.ServerStatus(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(st.Fields))
	for k := range st.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][2]string
	for _, k := range keys {
		out = append(out, [2]string{strings.ReplaceAll(k, " ", "-"), st.Fields[k]})
	}
	return out, nil
}

// catalogOf is the catalog zone the service's zones join ("" none).
func catalogOf(s *zoneservice.Service) string {
	if s.Catalog == nil {
		return ""
	}
	return s.Catalog.Zone
}

// SideFiles is the zone service's zone directory, where this API keeps
// each zone's side file (nil when its store keeps none).
func (b Backend) SideFiles() (frontend.SideFiles, error) {
	s, err := b.svc(context.Background())
	if err != nil {
		return nil, err
	}
	sf, _ := s.Store.(frontend.SideFiles)
	return sf, nil
}

// Interface guard
var _ Service = Backend{}
