package module

import (
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/internal/statschannel"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// commandExpiry is added to the rndc timeout to give each control command's
// expiry: named refuses a command it reads later than that after it was
// sent, so a command that timed out cannot take effect after it. named's
// clock must agree with this host's to well within it.
const commandExpiry = 10 * time.Second

// serverConfig is the configuration of the zone server (zoneservice.Server)
// that every view's service shares, over the control-channel client c;
// getBackend adds the views' parts, the history and the inventory.
func (h *Handler) serverConfig(c *rndc.Client) zoneservice.ServerConfig {
	var keyDirs []string
	if d := caddy.NewReplacer().ReplaceKnown(h.KeyDirectory, ""); d != "" {
		keyDirs = []string{d}
	}
	// named-checkzone checks imports unless it is off (the service's own
	// checks then).
	var checker *zonecheck.Checker
	if h.NamedCheckzone != "off" {
		checker = &zonecheck.Checker{Path: caddy.NewReplacer().ReplaceKnown(h.NamedCheckzone, ""), Procs: h.checkzone}
	}
	return zoneservice.ServerConfig{
		Names:           h.views.names,
		Control:         c,
		SerialMethod:    h.conf.SerialMethod,
		Checker:         checker,
		Timeout:         h.conf.RNDCTimeout,
		KeyDirs:         keyDirs,
		Logger:          h.logger,
		ZoneCacheMaxAge: time.Duration(h.ZoneCacheMaxAge),
		// The restart watch's every 2 s (StatisticsStatus); its rndc on a connection of its own.
		WatchStatus:   zoneservice.StatisticsStatus(statschannel.Server(h.conf.StatsURL), (&rndc.Client{Addr: c.Addr, Key: c.Key, Timeout: c.Timeout, MaxIdle: -1, Observe: c.Observe}).Status),
		Catalog:       h.conf.Catalog.NewCatalog,
		CatalogNotify: h.conf.Catalog.Notify,
	}
}
