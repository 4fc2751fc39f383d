package module

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
)

// registerMetrics registers zone_api's collectors (package apimetrics;
// zoneapi_zones counts the directories of storePool) and the event
// stream's and the webhooks' (package events) in reg, the registry of one
// config load.
func registerMetrics(reg *prometheus.Registry) error {
	return apimetrics.Register(reg, storePool, events.Collectors(openHistories)...)
}

// openHistories are the change histories open in the process
// (sharedhistory.OpenLogs), for package events' metrics.
func openHistories() []events.HistoryMeter {
	logs := sharedhistory.OpenLogs()
	out := make([]events.HistoryMeter, len(logs))
	for i, l := range logs {
		out[i] = l
	}
	return out
}
