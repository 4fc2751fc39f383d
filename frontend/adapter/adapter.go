// Package adapter implements the front ends' contract (package
// frontend) over the zone service (package zoneservice): zone_api
// (package module) builds a Zones over the service of its default view
// and gives it to the front ends it mounts, which see only the contract.
// Each method is one call of the zone service, translated to and from the
// contract's zonemodel values; its errors are the service's, within a
// *frontend.CallError naming the call's zone and record operation.
package adapter

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Zones is the contract (frontend.Service) over a zone service.
type Zones struct {
	// Service returns the zone service, set up on first use.
	Service func(ctx context.Context) (*zoneservice.Service, error)
	// EnterImport, when set, admits an import by identity among those
	// running at once (zone_api's gate), returning its release; its
	// refusal is a *frontend.ImportsBusy.
	EnterImport func(identity string) (release func(), err error)
}

// The contract's values.
type (
	zoneInfo = frontend.ZoneInfo
)

func (b Zones) svc(ctx context.Context) (*zoneservice.Service, error) {
	return b.Service(ctx)
}

// opErr is a lifecycle error of the call on zone.
func opErr(zone string, err error) error { return &frontend.CallError{Zone: zone, Err: err} }

// ListZones lists the zones with the serials named last reported.
func (b Zones) ListZones(ctx context.Context) ([]zoneInfo, error) {
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
	out := make([]zoneInfo, len(entries))
	for i, e := range entries {
		out[i] = zoneInfo{Name: e.Name, Type: e.Type, Created: e.Created, Catalog: catalogOf(s)}
		out[i].Serial, out[i].HasSerial = serials[e.Name]
	}
	return out, nil
}

// ZonesPage is ListZones a page at a time, in name order: at most limit
// zones after cursor ("" from the start), with the cursor of the next
// page ("" after the last). The PowerDNS API's zone list is streamed
// from it (powerdns's zonePager), so that neither the list of every
// zone nor a map of their serials is held at once: each zone's serial is
// looked up in the inventory's snapshot (zoneservice's SerialsOf), which
// the first page asks named for when there is none, and the pages after
// it do not.
func (b Zones) ZonesPage(ctx context.Context, cursor string, limit int) ([]zoneInfo, string, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, "", err
	}
	entries, next, _, err := s.ListZones("", cursor, limit)
	if err != nil {
		return nil, "", err
	}
	serial := s.SerialsOf(ctx, cursor != "")
	catalog := catalogOf(s)
	out := make([]zoneInfo, len(entries))
	for i, e := range entries {
		out[i] = zoneInfo{Name: e.Name, Type: e.Type, Created: e.Created, Catalog: catalog}
		if serial != nil {
			out[i].Serial, out[i].HasSerial = serial(e.Name, e.Created)
		}
	}
	return out, next, nil
}

// DescribeZone describes one zone: what named reports of it and its
// statement.
func (b Zones) DescribeZone(ctx context.Context, zone string) (*zoneInfo, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	zs, err := s.Zone(ctx, zone)
	if err != nil {
		return nil, opErr(zone, err)
	}
	var cfg *zoneservice.Settings
	if zc, err := s.ZoneStatement(ctx, zone); err == nil {
		cfg = zoneservice.SettingsOf(zc)
	}
	return zoneInfoOf(s, zone, zs, cfg), nil
}

// CachedZone is Zone answered from the zone cache when it holds the
// zone (zoneservice's CachedZoneAndStatement: named is asked nothing;
// on a miss zonestatus and showzone are sent at once): the PowerDNS
// API's zone GET. Its answer is Zone's.
func (b Zones) CachedZone(ctx context.Context, zone string) (*zoneInfo, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	zs, zc, err, serr := s.CachedZoneAndStatement(ctx, zone)
	if err != nil {
		return nil, opErr(zone, err)
	}
	var cfg *zoneservice.Settings
	if serr == nil {
		cfg = zoneservice.SettingsOf(zc)
	}
	return zoneInfoOf(s, zone, zs, cfg), nil
}

// zoneInfoOf is the zone described from its state and its statement's
// settings (nil when showzone failed).
func zoneInfoOf(s *zoneservice.Service, zone string, zs *zoneservice.ZoneState, cfg *zoneservice.Settings) *zoneInfo {
	z := &zoneInfo{Name: zone, Type: zonemodel.TypePrimary}
	switch {
	case zs.Status != nil:
		// A zone named knows but has not loaded (a secondary before
		// its first transfer) has no serial yet.
		st := zs.Status
		z.Type, z.Serial, z.HasSerial, z.Signed = st.Type, st.Serial, st.HasSerial, st.Secure
	}
	if zs.Managed {
		z.Created, z.Catalog = zs.Entry.Created, catalogOf(s)
	} else if c := catalogOf(s); c != "" && strings.EqualFold(c, zone) {
		z.Catalog = c // the catalog zone itself (shown as a Producer)
	}
	if cfg != nil {
		z.Type = cfg.Type
		z.Primaries, z.AlsoNotify, z.AllowTransfer, z.DNSSECPolicy = cfg.Primaries, cfg.AlsoNotify, cfg.AllowTransfer, cfg.DNSSECPolicy
		z.CheckNames = cfg.Options["check-names"]
	}
	if z.Type == "secondary" || z.Type == "slave" {
		z.Type = zonemodel.TypeSecondary
	} else {
		z.Type = zonemodel.TypePrimary
	}
	return z
}

// records is the record concern of the zone service (its Records).
func (b Zones) records(ctx context.Context) (*zoneservice.Records, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	return s.Records(), nil
}

// recordErr is an error of a record operation.
func recordErr(r *zoneservice.Records, zone, op string, err error) error {
	return &frontend.CallError{Zone: zone, Op: op, UpdateKey: r.UpdateKeyName(), Err: err}
}

// Records reads the zone's RRsets and serial (zoneservice's
// Records.RRsets).
func (b Zones) Records(ctx context.Context, zone string) (uint32, []zonemodel.RRset, error) {
	r, err := b.records(ctx)
	if err != nil {
		return 0, nil, err
	}
	serial, sets, err := r.RRsets(ctx, zone)
	if err != nil {
		return 0, nil, recordErr(r, zone, "read", err)
	}
	return serial, sets, nil
}

// SearchRecords reads the zone's RRsets when one of its records matches.
// Its records are matched before they are grouped into RRsets (sorted,
// their values' text kept), which a zone without a match never is.
func (b Zones) SearchRecords(ctx context.Context, zone string, match func(owner, value string) bool) ([]zonemodel.RRset, error) {
	r, err := b.records(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := r.ScanSnapshot(ctx, zone)
	if err != nil {
		return nil, recordErr(r, zone, "read", err)
	}
	for _, rr := range snap.RRs {
		if match(rr.Header().Name, zonemodel.RDataText(rr)) {
			return snap.RRsets(), nil
		}
	}
	return nil, nil
}

// Apply applies the changes as one UPDATE; a replace of the apex SOA
// RRset sets the SOA in it (zoneservice's Records.ApplyChangesSettingSOA).
func (b Zones) Apply(ctx context.Context, zone string, changes []zonemodel.Change) (uint32, uint32, error) {
	r, err := b.records(ctx)
	if err != nil {
		return 0, 0, err
	}
	res, err := r.ApplyChangesSettingSOA(ctx, zone, changes, nil)
	if err != nil {
		return 0, 0, recordErr(r, zone, "batch", err)
	}
	return res.OldSerial, res.Serial, nil
}

// Create creates the zone (the service's Create).
func (b Zones) Create(ctx context.Context, z *zonemodel.Zone, fp string) (*zonemodel.Created, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Create(ctx, z, fp)
	if err != nil {
		return nil, opErr(z.Name, err)
	}
	return res, nil
}

// Import creates the primary zone from src, admitted through
// EnterImport first when set.
func (b Zones) Import(ctx context.Context, zone string, src *zonemodel.ImportSource, fp string) (*zonemodel.Imported, error) {
	if b.EnterImport != nil {
		release, err := b.EnterImport(zoneservice.ActorOf(ctx).Identity)
		if err != nil {
			return nil, opErr(zone, err)
		}
		defer release()
	}
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Import(ctx, zone, src, fp)
	if err != nil {
		return nil, opErr(zone, err)
	}
	return res, nil
}

// Delete deletes a zone as opts say (the PowerDNS API's clients cannot
// confirm the delete of a zone the API does not manage, so it passes no
// options and such a delete is refused).
func (b Zones) Delete(ctx context.Context, zone string, opts zonemodel.DeleteOptions) (*zonemodel.Deleted, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Delete(ctx, zone, opts)
	if err != nil {
		return nil, opErr(zone, err)
	}
	return res, nil
}

// Modify changes the zone's clauses the change names; an allow-transfer
// list it sets keeps admitting the update key.
func (b Zones) Modify(ctx context.Context, zone string, ch *zonemodel.SettingsChange) (*zonemodel.Modified, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	c := *ch
	if c.AllowTransfer != nil && s.UpdateKey != "" {
		// The API reads zones by AXFR signed with its key: a list set
		// through ALLOW-AXFR-FROM keeps admitting it.
		grant := "key " + s.UpdateKey
		if !slices.Contains(*c.AllowTransfer, grant) {
			v := append(slices.Clone(*c.AllowTransfer), grant)
			c.AllowTransfer = &v
		}
	}
	res, err := s.Modify(ctx, zone, &c)
	if err != nil {
		return nil, opErr(zone, err)
	}
	return res, nil
}

// Notify sends NOTIFY for the zone and reports the answers.
func (b Zones) Notify(ctx context.Context, zone string) (*zonemodel.Notified, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Notify(ctx, zone)
	if err != nil {
		return nil, opErr(zone, err)
	}
	return res, nil
}

// Retransfer makes a secondary zone transfer now and returns named's
// answer.
func (b Zones) Retransfer(ctx context.Context, zone string) (string, error) {
	s, err := b.svc(ctx)
	if err != nil {
		return "", err
	}
	res, err := s.Retransfer(ctx, zone)
	if err != nil {
		return "", opErr(zone, err)
	}
	return res, nil
}

// Keys lists the zone's DNSSEC keys.
func (b Zones) Keys(ctx context.Context, zone string) ([]frontend.Key, error) {
	r, err := b.records(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := r.Keys(ctx, zone)
	if err != nil {
		return nil, recordErr(r, zone, "read", err)
	}
	return keys, nil
}

// Statistics returns what named reports about itself, in name order.
func (b Zones) Statistics(ctx context.Context) ([][2]string, error) {
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
func (b Zones) SideFiles() (frontend.SideFiles, error) {
	s, err := b.svc(context.Background())
	if err != nil {
		return nil, err
	}
	sf, _ := s.Store.(frontend.SideFiles)
	return sf, nil
}

// Interface guard
var _ frontend.Service = Zones{}
