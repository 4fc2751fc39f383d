package adapter

import (
	"context"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// REST is the zone API's contract (frontend.ZoneAPIServer) over the zone
// services of the views: each view's *zoneservice.Service is a
// frontend.ZoneAPIService as it is. A nil s gives a nil ZoneAPIServer.
func REST(s *zoneservice.Server) frontend.ZoneAPIServer {
	if s == nil {
		return nil
	}
	return restServer{s}
}

// restServer is REST's server.
type restServer struct{ *zoneservice.Server }

// Service returns the zone service of view, a nil ZoneAPIService (not a
// nil *zoneservice.Service in one) for a view not configured.
func (s restServer) Service(view string) frontend.ZoneAPIService {
	if vs := s.Server.Service(view); vs != nil {
		return vs
	}
	return nil
}

// Start runs view's start-up reconciles and returns its service, as
// Service.
func (s restServer) Start(ctx context.Context, view string) frontend.ZoneAPIService {
	if vs := s.Server.Start(ctx, view); vs != nil {
		return vs
	}
	return nil
}
