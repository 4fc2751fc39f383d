package zoneservice

import (
	"fmt"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/catalog"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// CatalogSettings is the catalog option of zone_api (RFC 9432), checked
// and expanded; the zero value means no catalog. It builds the catalog
// of each server's root service (ServerConfig.Catalog); moved from
// module/catalog.go.
type CatalogSettings struct {
	Zone       string       // the catalog's normalised name
	Group      string       // the group property of every member
	Notify     []string     // also_notify, expanded
	notifyConf []rndc.Value // the same as catalog list elements
	xfr        []rndc.Value // allow_transfer, as catalog list elements
}

// NewCatalogSettings checks the catalog option's values, placeholders
// expanded (an expanded also_notify or allow_transfer entry that is
// empty is left out): the zone, its group, the secondaries it notifies,
// who may transfer it, and whether the update key it needs has its
// secret. It touches neither BIND nor the disk.
func NewCatalogSettings(zone, group string, alsoNotify, allowTransfer []string, updateKeySecret bool) (CatalogSettings, error) {
	var cs CatalogSettings
	name, err := zonemodel.NormalizeZoneName(zone)
	if err != nil {
		return cs, fmt.Errorf("catalog zone: %v", err)
	}
	if name == zonemodel.Root {
		// Every zone would be below its catalog: the catalog must be
		// a zone of its own (RFC 9432 names its members below it).
		return cs, fmt.Errorf("catalog zone: must not be the root zone")
	}
	if strings.ContainsFunc(group, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(group) > 255 {
		return cs, fmt.Errorf("catalog group: at most 255 characters, no control characters")
	}
	for _, s := range alsoNotify {
		if s == "" {
			continue
		}
		e, err := ServerElement(s)
		if err != nil {
			return cs, fmt.Errorf("catalog also_notify: %v", err)
		}
		cs.Notify, cs.notifyConf = append(cs.Notify, s), append(cs.notifyConf, e)
	}
	for _, s := range allowTransfer {
		if s == "" {
			continue
		}
		e, isKey, err := ACLElement(s)
		if err != nil || isKey {
			return cs, fmt.Errorf("catalog allow_transfer: %q is not an address or network", s)
		}
		cs.xfr = append(cs.xfr, e)
	}
	if !updateKeySecret {
		return cs, fmt.Errorf("catalog needs update_key (or update_key_file) with its secret: the catalog is changed by signed dynamic updates")
	}
	cs.Zone, cs.Group = name, group
	return cs, nil
}

// NewCatalog returns the catalog of a backend's service, nil when none
// is configured.
func (cs CatalogSettings) NewCatalog(store *zonestore.Store, rc catalog.Control, records *dnsupdate.Updater, updateKey string) *catalog.Catalog {
	if cs.Zone == "" {
		return nil
	}
	return &catalog.Catalog{
		Zone: cs.Zone, Group: cs.Group, Dir: store.Dir(), UpdateKey: updateKey,
		AlsoNotify: cs.notifyConf, AllowTransfer: cs.xfr,
		DNS: records.Client(), Control: rc,
		IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists,
	}
}
