package client

import (
	"context"
	"net/http"
)

// ZoneSettings is a zone's configuration as named's showzone reports it, in
// the notation ModifyZone accepts.
type ZoneSettings struct {
	// Type is primary, secondary, ...
	Type string `json:"type"`
	// File is the zone file.
	File string `json:"file,omitempty"`
	// Primaries are the servers a secondary transfers from.
	Primaries []string `json:"primaries,omitempty"`
	// AlsoNotify are the servers sent NOTIFY besides the NS targets.
	AlsoNotify []string `json:"alsoNotify,omitempty"`
	// AllowTransfer is who may transfer the zone.
	AllowTransfer []string `json:"allowTransfer,omitempty"`
	// AllowUpdate is who may update the zone.
	AllowUpdate []string `json:"allowUpdate,omitempty"`
	// UpdatePolicy is the update-policy clause as named prints it.
	UpdatePolicy string `json:"updatePolicy,omitempty"`
	// DNSSECPolicy is the zone's dnssec-policy.
	DNSSECPolicy string `json:"dnssecPolicy,omitempty"`
	// InlineSigning is the inline-signing clause, when set.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
	// Options holds every clause as named prints it.
	Options map[string]string `json:"options"`
	// Statement is showzone's text.
	Statement string `json:"statement"`
}

// ModifyZone is the body of PATCH /zones/{name}; nil fields are left
// unchanged.
type ModifyZone struct {
	// AlsoNotify replaces also-notify: "ip", "ip:port", "[v6]:port", each
	// optionally followed by " key NAME".
	AlsoNotify *[]string `json:"alsoNotify,omitempty"`
	// AllowTransfer replaces allow-transfer's addresses ("ip", "ip/len",
	// "!ip", "key NAME", any, none); key grants stay unless it names keys.
	AllowTransfer *[]string `json:"allowTransfer,omitempty"`
	// AllowUpdate replaces allow-update's addresses, as AllowTransfer.
	AllowUpdate *[]string `json:"allowUpdate,omitempty"`
	// Primaries replaces a secondary's primaries, as AlsoNotify.
	Primaries *[]string `json:"primaries,omitempty"`
	// DNSSECPolicy sets dnssec-policy; "" removes it.
	DNSSECPolicy *string `json:"dnssecPolicy,omitempty"`
	// InlineSigning sets inline-signing.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
}

// ModifyZoneResponse is the answer of PATCH /zones/{name}.
type ModifyZoneResponse struct {
	// Success is true.
	Success bool `json:"success"`
	// Message says what was done.
	Message string `json:"message"`
	// Details is named's text.
	Details string `json:"details"`
	// Config is the configuration named reports after the change.
	Config *ZoneSettings `json:"config,omitempty"`
}

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
