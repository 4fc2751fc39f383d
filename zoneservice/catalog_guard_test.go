package zoneservice

import (
	"context"
	"errors"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestCatalogZoneRecordsNotChangedThroughAPI: record changes to the
// catalog zone the service keeps are refused (ErrCatalogZone) before
// anything is sent: a member added by hand would make every catalog
// consumer load a zone the API does not manage (found in the hostile
// review: a token whose zone pattern covers the catalog's name could do
// it).
func TestCatalogZoneRecordsNotChangedThroughAPI(t *testing.T) {
	s := &Service{Catalog: &catalog.Catalog{Zone: "catalog.customer.test"}}
	ctx := context.Background()
	_, err := s.Records().AddRecord(ctx, "Catalog.Customer.Test.", zonemodel.Record{Name: "x.zones", Type: "PTR", Value: "evil.test."}, nil)
	if !errors.Is(err, ErrCatalogZone) {
		t.Errorf("add: %v, want ErrCatalogZone", err)
	}
	if _, err := s.Records().ApplyChanges(ctx, "catalog.customer.test", []dnsupdate.Change{{}}, nil); !errors.Is(err, ErrCatalogZone) {
		t.Errorf("batch: %v, want ErrCatalogZone", err)
	}
}

// TestCatalogZoneSettingsNotChangedThroughAPI: a settings change of the
// catalog zone is refused (ErrCatalogZone) before named is asked: a
// token whose zone pattern covers the catalog's name could otherwise
// set allow-update on it (found in the security review of 2026-11-28).
// The Service has no control channel: reaching it would panic.
func TestCatalogZoneSettingsNotChangedThroughAPI(t *testing.T) {
	s := &Service{Catalog: &catalog.Catalog{Zone: "catalog.customer.test"}}
	_, err := s.Modify(context.Background(), "Catalog.Customer.Test.", &SettingsChange{AllowUpdate: &[]string{"any"}})
	if !errors.Is(err, ErrCatalogZone) {
		t.Errorf("modify: %v, want ErrCatalogZone", err)
	}
}
