package events

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
)

// TestHistoryMetrics: the events recorded and the history's size are read
// from the open history at scrape time.
func TestHistoryMetrics(t *testing.T) {
	l, release, err := sharedhistory.Shared(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	appendChanges(t, l, 5, "a.test")
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(historyCollector{openLogs: openHistories}); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		if m.Counter != nil {
			got[mf.GetName()] = m.GetCounter().GetValue()
		} else {
			got[mf.GetName()] = m.GetGauge().GetValue()
		}
	}
	if got["zoneapi_events_recorded_total"] < 5 || got["zoneapi_history_size_bytes"] <= 0 || got["zoneapi_history_segments"] < 1 || got["zoneapi_history_first_id"] != 1 {
		t.Errorf("history metrics: %v", got)
	}
}

// openHistories is sharedhistory.OpenLogs as the collector reads it (module
// wires the same).
func openHistories() []HistoryMeter {
	var out []HistoryMeter
	for _, l := range sharedhistory.OpenLogs() {
		out = append(out, l)
	}
	return out
}
