package zoneservice

import (
	"context"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/catalog"
)

// IsCatalogZone reports whether name is the service's catalog zone.
func (s *Service) IsCatalogZone(name string) bool {
	return s.Catalog != nil && strings.EqualFold(strings.TrimSuffix(name, "."), strings.TrimSuffix(s.Catalog.Zone, "."))
}

// CatalogMembers lists the catalog zone's members. Errors: ErrNoCatalog,
// and ErrControl for a failure to read the catalog.
func (s *Service) CatalogMembers(ctx context.Context) ([]catalog.Member, error) {
	if s.Catalog == nil {
		return nil, newErr(ErrNoCatalog, "", "", "no catalog zone is configured", nil)
	}
	members, err := s.Catalog.Members(ctx)
	if err != nil {
		return nil, newErr(ErrControl, s.Catalog.Zone, "", "", err)
	}
	return members, nil
}

// ReconcileCatalog compares the catalog with the zone index and, with
// fix, repairs it (a member for each managed zone that lacks one, no
// member for a zone that is not managed) under each zone's lock. Errors:
// ErrNoCatalog, ErrStorage (the index) and ErrControl.
func (s *Service) ReconcileCatalog(ctx context.Context, fix bool) (*catalog.Report, error) {
	if s.Catalog == nil {
		return nil, newErr(ErrNoCatalog, "", "", "no catalog zone is configured", nil)
	}
	entries, _, _, err := s.Store.List("", "", 0)
	if err != nil {
		return nil, newErr(ErrStorage, "", "", "reading the zone index", err)
	}
	zones := make([]string, len(entries))
	for i, e := range entries {
		zones[i] = e.Name
	}
	rep, err := s.Catalog.Reconcile(ctx, zones, fix, s.Store.Lock, func(zone string) (bool, error) {
		_, ok, err := s.Store.Get(zone)
		return ok, err
	})
	if err != nil {
		return nil, newErr(ErrControl, s.Catalog.Zone, "", "", err)
	}
	return rep, nil
}
