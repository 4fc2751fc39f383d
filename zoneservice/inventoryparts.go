package zoneservice

import (
	"context"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// NewInventory returns the inventory of named's zones that open reads
// from the statistics channel (at most maxBytes of it, parsed as it comes), classifying
// zones with zonestatus over c, kept between runs in store's kept file
// "inventory"; ServerConfig.Inventory. Moved from module/inventory.go,
// which keeps the HTTP GET.
func NewInventory(open func(context.Context) (io.ReadCloser, error), maxBytes int64, refresh time.Duration, logger *zap.Logger, c *rndc.Client, store *zonestore.Store) *inventory.Inventory {
	return &inventory.Inventory{
		Refresh: refresh,
		Logger:  logger,
		Open:    open,
		Load:    func() ([]byte, bool, error) { return store.ReadKeptFile("inventory", maxBytes) },
		Save:    func(data []byte) error { return store.ReplaceKeptFile("inventory", data) },
		Status: func(ctx context.Context, name, view string) (bool, error) {
			if view == inventory.DefaultView {
				view = ""
			}
			st, err := c.InView(view).ZoneStatus(ctx, name)
			if err != nil {
				return false, err
			}
			return st.Reconfigurable, nil
		},
	}
}
