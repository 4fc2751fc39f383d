package sharedhistory

import (
	"context"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// Follow, started by zone_api's Provision when the history is on, has
// the zone server follow the history (zoneservice.Server.FollowHistory)
// once the backend is resolved (by the first request, or the restart
// watch a couple of seconds after start; the watch never resolves it
// itself, so nothing touches the disk before that, and `caddy validate`
// touches nothing): changes made while the API was not running, or whose
// entry a crash lost (zoneservice.Service.CatchUp), and named's NOTIFYs
// on notifyAddr (AcquireNotify) until ctx ends (Cleanup).
func Follow(ctx context.Context, on bool, notifyAddr string, resolved func() *zoneservice.Server) {
	if !on {
		return
	}
	var b *zoneservice.Server
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
		if b = resolved(); b != nil && b.Root().History != nil {
			break
		}
	}
	b.FollowHistory(ctx, notifyAddr, AcquireNotify)
}
