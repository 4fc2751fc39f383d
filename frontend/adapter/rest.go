package adapter

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// REST is the zone API's contract (frontend.ZoneAPIServer) over the zone
// services of the views: each view's frontend.ZoneAPIService is its
// *zoneservice.Service with that service's record concern (zoneAPI). A
// nil s gives a nil ZoneAPIServer.
func REST(s *zoneservice.Server) frontend.ZoneAPIServer {
	if s == nil {
		return nil
	}
	return restServer{s}
}

// restServer is REST's server.
type restServer struct{ *zoneservice.Server }

// Service returns the zone service of view, a nil ZoneAPIService (not a
// zoneAPI of a nil *zoneservice.Service) for a view not configured.
func (s restServer) Service(view string) frontend.ZoneAPIService {
	if vs := s.Server.Service(view); vs != nil {
		return zoneAPIOf(vs)
	}
	return nil
}

// Start runs view's start-up reconciles and returns its service, as
// Service.
func (s restServer) Start(ctx context.Context, view string) frontend.ZoneAPIService {
	if vs := s.Server.Start(ctx, view); vs != nil {
		return zoneAPIOf(vs)
	}
	return nil
}

// zoneAPI is a view's zone service as the zone API sees it: the
// Service's zone lifecycle, reads, imports and server, and the record
// operations of its Records (zoneservice's record concern: RecordAdder,
// RecordRemover, RecordReplacer, ChangeApplier, RecordPager,
// ZoneFileReader, and UpdateKeys' CanUpdate).
type zoneAPI struct {
	*zoneservice.Service
	*zoneservice.Records
}

// zoneAPIOf is s as the zone API sees it.
func zoneAPIOf(s *zoneservice.Service) zoneAPI { return zoneAPI{s, s.Records()} }

// UpdateKeyName is the service's update key (both embedded types have
// it, the same).
func (z zoneAPI) UpdateKeyName() string { return z.Service.UpdateKeyName() }

// Interface guard
var _ frontend.ZoneAPIService = zoneAPI{}
