package zoneservice

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ZoneDetails is what GET /zones/{name} tells of a zone besides its
// state: its settings, from its statement (CachedStatement; nil when
// showzone failed), and what the API can do with it (CapabilitiesOf,
// from st, named's zonestatus, nil when the zone is not loaded, that
// statement and managed).
func (s *Service) ZoneDetails(ctx context.Context, name string, st *zonemodel.ZoneStatus, managed bool) (*Settings, Capabilities) {
	zc, err := s.CachedStatement(ctx, name)
	var settings *Settings
	if err == nil {
		settings = SettingsOf(zc)
	}
	return settings, s.CapabilitiesOf(name, st, zc, managed)
}
