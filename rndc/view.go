package rndc

import (
	"context"
	"errors"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ValidViewName reports whether view is a view name this module puts on
// an rndc command line: zonemodel.CheckViewName (1 to 64 letters, digits,
// '_' and '-', not starting with '-').
func ValidViewName(view string) error { return zonemodel.CheckViewName(view) }

// ZoneArg returns the zone argument of a zone command: "zone" when view
// is "", else "zone IN view" (rndc's `zone [class [view]]`: the zone in
// that view). Both names are validated (ValidZoneName, ValidViewName), so
// neither can smuggle anything else into the command.
func ZoneArg(zone, view string) (string, error) {
	if err := ValidZoneName(zone); err != nil {
		return "", err
	}
	if strings.Contains(zone, "/") {
		// named's configuration parser (addzone, modzone) reads an
		// unquoted '/' as a token of its own ("'{' expected near '/'"),
		// and its command parser takes a quoted word whole: a name with
		// '/' goes in quotes (ValidZoneName leaves no quote in it).
		zone = `"` + zone + `"`
	}
	if view == "" {
		return zone, nil
	}
	if err := ValidViewName(view); err != nil {
		return "", err
	}
	return zone + " IN " + view, nil
}

// ViewClient sends the zone commands of a Client to the zones of one
// view: every command that names a zone names it as `zone IN view`
// (zonestatus, showzone, addzone, modzone, delzone, reload, freeze, thaw,
// notify, retransfer), so that named acts on that view's zone of the name
// and on no other. Commands that name no zone (status, reload of every
// zone) are the Client's. It shares the Client's connections.
type ViewClient struct {
	*Client
	// View is the view's name (ValidViewName).
	View string
}

// InView returns the client of the zones of view; InView("") is a
// ViewClient whose commands name no view, exactly as c's.
func (c *Client) InView(view string) *ViewClient { return &ViewClient{Client: c, View: view} }

// ZoneStatus runs "zonestatus <zone> IN <view>" (see Client.ZoneStatus).
func (v *ViewClient) ZoneStatus(ctx context.Context, zone string) (*ZoneStatus, error) {
	return v.zoneStatus(ctx, zone, v.View)
}

// ShowZone runs "showzone <zone> IN <view>" (see Client.ShowZone).
func (v *ViewClient) ShowZone(ctx context.Context, zone string) (string, error) {
	return v.showZone(ctx, zone, v.View)
}

// ShowZoneStatement runs "showzone <zone> IN <view>" and parses the
// statement (see Client.ShowZoneStatement).
func (v *ViewClient) ShowZoneStatement(ctx context.Context, zone string) (*ZoneStatement, error) {
	return v.showZoneStatement(ctx, zone, v.View)
}

// AddZone runs "addzone <zone> IN <view> <block>" (see Client.AddZone).
func (v *ViewClient) AddZone(ctx context.Context, zs *ZoneStatement) (string, error) {
	return v.statementCommand(ctx, "addzone", zs, v.View)
}

// ModZone runs "modzone <zone> IN <view> <block>" (see Client.ModZone).
func (v *ViewClient) ModZone(ctx context.Context, zs *ZoneStatement) (string, error) {
	return v.statementCommand(ctx, "modzone", zs, v.View)
}

// DelZone runs "delzone [-clean] <zone> IN <view>" (see Client.DelZone).
func (v *ViewClient) DelZone(ctx context.Context, zone string, clean bool) (string, error) {
	return v.delZone(ctx, zone, v.View, clean)
}

// Reload runs "reload <zone> IN <view>", or "reload" (configuration and
// all zones) when zone is "".
func (v *ViewClient) Reload(ctx context.Context, zone string) (string, error) {
	return v.optionalZone(ctx, "reload", zone, v.View)
}

// Freeze runs "freeze <zone> IN <view>", or "freeze" (all dynamic zones)
// when zone is "".
func (v *ViewClient) Freeze(ctx context.Context, zone string) (string, error) {
	return v.optionalZone(ctx, "freeze", zone, v.View)
}

// Thaw runs "thaw <zone> IN <view>", or "thaw" (all frozen zones) when
// zone is "".
func (v *ViewClient) Thaw(ctx context.Context, zone string) (string, error) {
	return v.optionalZone(ctx, "thaw", zone, v.View)
}

// Notify runs "notify <zone> IN <view>".
func (v *ViewClient) Notify(ctx context.Context, zone string) (string, error) {
	return v.textCommand(ctx, "notify", zone, v.View)
}

// LoadKeys runs "loadkeys <zone> IN <view>" (see Client.LoadKeys).
func (v *ViewClient) LoadKeys(ctx context.Context, zone string) (string, error) {
	return v.textCommand(ctx, "loadkeys", zone, v.View)
}

// Retransfer runs "retransfer <zone> IN <view>" (see Client.Retransfer).
func (v *ViewClient) Retransfer(ctx context.Context, zone string) (string, error) {
	return v.textCommand(ctx, "retransfer", zone, v.View)
}

// IsMultipleViews reports whether err is named refusing a command that
// named no view for a zone that several views hold ("multiple": "zone
// 'x' was found in multiple views").
func IsMultipleViews(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Err == "multiple" || strings.Contains(e.Text, "found in multiple views"))
}

// IsNoSuchView reports whether err is named refusing a command for a
// view it does not have ("no matching view 'x'", or, for an addzone that
// named no view on a server with views, "no matching view found for
// '_default'").
func IsNoSuchView(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.Contains(e.Text, "no matching view")
}
