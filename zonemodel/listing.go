package zonemodel

import "time"

// Where a zone's configuration comes from (package inventory's Source*).
const (
	// ZoneSourceNamedConf: named's configuration file; modzone and
	// delzone cannot change it durably.
	ZoneSourceNamedConf = "named.conf"
	// ZoneSourceNZD: the new-zone database (added with `rndc addzone`
	// outside the API, or by another tool).
	ZoneSourceNZD = "nzd"
	// ZoneSourceAPI: the new-zone database, for a zone created or
	// adopted through the API (its index knows it).
	ZoneSourceAPI = "api"
)

// ZoneViewDefault is the view named puts zones in when named.conf has no
// view statement (package inventory's DefaultView).
const ZoneViewDefault = "_default"

// ListedZone is one zone of the list of every zone named serves
// (the zone service's AllZones).
type ListedZone struct {
	// Name is the zone's name.
	Name string
	// View is the view that serves it (ZoneViewDefault without
	// views).
	View string
	// Type is named's type of the zone (primary, secondary, ...).
	Type string
	// Serial is the SOA serial as of the inventory's snapshot;
	// HasSerial is false when named has not loaded the zone, or has not
	// reported it yet (a zone the API created since the snapshot).
	Serial    uint32
	HasSerial bool
	// Managed is true for a zone created or adopted through the API.
	Managed bool
	// Source is where the zone's configuration comes from:
	// ZoneSourceNamedConf, ZoneSourceNZD or ZoneSourceAPI, or "" when named
	// could not be asked yet.
	Source string
	// Created is when the API created or adopted it (managed zones).
	Created time.Time
}

// Key is the zone's place in the list's order, "name@view": the cursor
// of the page that ends with it.
func (z *ListedZone) Key() string { return z.Name + "@" + z.View }

// ListFilter selects zones of the list of every zone named serves; an
// empty field selects all.
type ListFilter struct {
	// Type is a zone type (primary, secondary).
	Type string
	// Source is ZoneSourceNamedConf, ZoneSourceNZD or ZoneSourceAPI.
	Source string
	// View is a view's name.
	View string
	// Managed, when set, keeps the managed (true) or unmanaged (false)
	// zones only.
	Managed *bool
	// Allow, when set, keeps the zones it allows (the identity's scope).
	Allow func(name, view string) bool
}

// ZoneScope is what an identity may see of the zones (*auth.Grant
// implements it; a nil *auth.Grant, or a nil ZoneScope, allows
// everything): AllowsZoneIn reports whether zone in view ("": addressed
// without a view) is allowed, RestrictsZones whether any zone may be
// refused.
type ZoneScope interface {
	AllowsZoneIn(zone, view string) bool
	RestrictsZones() bool
}

// ManagedZone is a managed zone in a list: its name, type
// (TypePrimary or TypeSecondary), when it was created, and its
// view ("" without views).
type ManagedZone struct {
	Name    string
	Type    string
	Created time.Time
	View    string
}
