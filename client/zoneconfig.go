package client

import (
	"context"
	"net/http"
)

// ModifyZone changes the zone's configuration (PATCH /zones/{name}),
// keeping every clause m does not name.
func (c *Client) ModifyZone(ctx context.Context, zone string, m ModifyZone) (*ModifyZoneResponse, error) {
	var v ModifyZoneResponse
	if _, err := c.call(ctx, request{method: http.MethodPatch, path: zonePath(zone), body: m}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// RetransferZone asks named to transfer a secondary zone again (POST
// /zones/{name}/retransfer); a primary zone answers 409.
func (c *Client) RetransferZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodPost, zonePath(zone)+"/retransfer")
}
