package zoneservice

import "context"

// zoneCreated runs the steps that belong to a zone's creation: the
// catalog's member (the service's own hook), then Hook. Both are
// idempotent (see Hook).
func (s *Service) zoneCreated(ctx context.Context, zone, typ string) error {
	if s.Catalog != nil {
		if err := s.Catalog.ZoneCreated(ctx, zone, typ); err != nil {
			return err
		}
	}
	if s.Hook != nil {
		return s.Hook.ZoneCreated(ctx, zone, typ)
	}
	return nil
}

// zoneDeleted runs the steps that belong to a zone's deletion: the
// catalog's member leaves, then Hook.
func (s *Service) zoneDeleted(ctx context.Context, zone string) error {
	if s.Catalog != nil {
		if err := s.Catalog.ZoneDeleted(ctx, zone); err != nil {
			return err
		}
	}
	if s.Hook != nil {
		return s.Hook.ZoneDeleted(ctx, zone)
	}
	return nil
}

// hasHook reports whether a create or delete has steps of the hooks.
func (s *Service) hasHook() bool { return s.Catalog != nil || s.Hook != nil }
