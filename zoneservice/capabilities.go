package zoneservice

import (
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Capability says whether the API can do one thing with a zone
// (zonemodel.Capability).
type Capability = zonemodel.Capability

// Capabilities are what the API can do with a zone
// (zonemodel.Capabilities).
type Capabilities = zonemodel.Capabilities

// CapabilitiesOf works out what the API can do with the zone from
// named's zonestatus (st; nil when the zone is not loaded), its statement
// (zc; nil when showzone failed) and whether the index has it.
func (s *Service) CapabilitiesOf(name string, st *rndc.ZoneStatus, zc *rndc.ZoneStatement, managed bool) Capabilities {
	typ := ""
	switch {
	case zc != nil:
		typ = zc.Type()
	case st != nil:
		typ = st.Type
	}
	namedConf := !managed && st != nil && !st.Reconfigurable
	var c Capabilities
	yes := Capability{Allowed: true}
	const confWhy = "configured in named.conf: modzone and delzone cannot change it durably (named takes named.conf's statement back at its next reconfig or restart); change named.conf and run rndc reconfig"

	// Records.
	switch {
	case s.IsCatalogZone(name):
		c.Records = Capability{Reason: "the catalog zone's records are kept by the API itself"}
	case typ != "primary":
		c.Records = Capability{Reason: "a " + typ + " zone has no records to change here: they change on its primaries"}
	case s.UpdateKey == "" || s.Updater == nil:
		c.Records = Capability{Reason: "the API has no update key to sign updates with (update_key)"}
	case zc == nil:
		c.Records = Capability{Reason: "named did not show the zone's configuration, so its update grant is not known"}
	case !grants(zc, s.UpdateKey):
		why := "the zone has no allow-update or update-policy grant for the API's key " + s.UpdateKey
		if namedConf {
			why += ": add " + updateGrant(zc, s.UpdateKey).String() + " to its statement in named.conf and run rndc reconfig"
		} else {
			why += ": adopt it with grantUpdateKey=true, or PATCH its allowUpdate"
		}
		c.Records = Capability{Reason: why}
	case st != nil && st.Frozen:
		c.Records = Capability{Reason: "the zone is frozen: thaw it first"}
	default:
		c.Records = yes
	}

	// Modify, delete.
	switch {
	case namedConf:
		c.Modify = Capability{Reason: "the zone is " + confWhy}
		c.Delete = c.Modify
	default:
		c.Modify = yes
		c.Delete = yes
		if s.IsCatalogZone(name) {
			c.Modify = Capability{Reason: "the catalog zone's settings are the catalog option's"}
			c.Delete = Capability{Reason: "the catalog zone the API keeps cannot be deleted"}
		} else if !managed {
			c.Delete = Capability{Allowed: true, Reason: "the zone is not managed by the API: the delete needs confirm=unmanaged"}
		}
	}

	// Adopt.
	switch {
	case managed:
		c.Adopt = Capability{Reason: "the zone is managed by the API already"}
	case s.IsCatalogZone(name):
		c.Adopt = Capability{Reason: "the catalog zone is kept by the API itself"}
	case namedConf:
		c.Adopt = Capability{Reason: "the zone is " + confWhy + "; move it to the new-zone database to adopt it (docs/migration.md)"}
	default:
		c.Adopt = yes
	}

	// Retransfer.
	if typ == "secondary" || typ == "mirror" || typ == "stub" {
		c.Retransfer = yes
	} else {
		c.Retransfer = Capability{Reason: "a " + typ + " zone does not transfer from primaries"}
	}
	return c
}
