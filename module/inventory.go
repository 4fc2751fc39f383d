package module

import (
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/internal/statschannel"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// newInventory returns the inventory of named's zones read from the
// statistics channel at url (nil when url is ""), built by
// zoneservice.NewInventory over c and store, given the channel's GET
// (statschannel.Open): the inventory does no I/O of its own.
func newInventory(url string, timeout, refresh time.Duration, logger *zap.Logger, c *rndc.Client, store *zonestore.Store) *inventory.Inventory {
	if url == "" {
		return nil
	}
	return zoneservice.NewInventory(statschannel.Open(url, timeout, statschannel.MaxZonesBytes), statschannel.MaxZonesBytes, refresh, logger, c, store)
}
