package sharedhistory

import "github.com/prometheus/client_golang/prometheus"

// Collectors are the metrics of the change histories open in the process
// (OpenLogs), read at scrape time: zoneapi_history_entries_total and
// zoneapi_history_write_errors_total, zoneapi_history_sync_errors_total.
// The history's size, segments and the events recorded are package
// events' metrics.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{historyEntriesCollector{}, historyErrorsCollector{}}
}

// historyErrorsCollector reports zoneapi_history_write_errors_total:
// the entries of changes made that could not be written to the open
// change histories (history.Log.NotRecorded, summed; each is logged in
// full), and
// zoneapi_history_sync_errors_total: the history's background fsyncs
// that failed.
type historyErrorsCollector struct{}

var historyErrorsDesc = prometheus.NewDesc("zoneapi_history_write_errors_total", "Entries of changes made (through the API, or found in named) that could not be written to the change history; each is logged in full at error level instead (docs/history.md).", nil, nil)

var historySyncErrorsDesc = prometheus.NewDesc("zoneapi_history_sync_errors_total", "Background fsyncs of the change history that failed: the entries written before may not survive a power loss (docs/history.md).", nil, nil)

// Describe implements prometheus.Collector.
func (historyErrorsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- historyErrorsDesc
	ch <- historySyncErrorsDesc
}

// Collect implements prometheus.Collector.
func (historyErrorsCollector) Collect(ch chan<- prometheus.Metric) {
	var notRecorded, syncErrs uint64
	for _, l := range OpenLogs() {
		notRecorded += l.NotRecorded()
		syncErrs += l.SyncErrors()
	}
	ch <- prometheus.MustNewConstMetric(historyErrorsDesc, prometheus.CounterValue, float64(notRecorded))
	ch <- prometheus.MustNewConstMetric(historySyncErrorsDesc, prometheus.CounterValue, float64(syncErrs))
}

// historyEntriesCollector reports zoneapi_history_entries_total{type,
// source}: the change history entries the process wrote since it opened
// the histories (package history's open Logs, summed), by entry type and
// source (api or external), at scrape time. The history's size, segments
// and the events recorded are package events' metrics.
type historyEntriesCollector struct{}

var historyEntriesDesc = prometheus.NewDesc("zoneapi_history_entries_total", "Change history entries written since the process opened the history, by entry type and source (api, or external: found in named).", []string{"type", "source"}, nil)

// Describe implements prometheus.Collector.
func (historyEntriesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- historyEntriesDesc }

// Collect implements prometheus.Collector.
func (historyEntriesCollector) Collect(ch chan<- prometheus.Metric) {
	sum := map[[2]string]uint64{}
	for _, l := range OpenLogs() {
		for _, c := range l.Counts() {
			sum[[2]string{c.Type, c.Source}] += c.N
		}
	}
	for k, n := range sum {
		ch <- prometheus.MustNewConstMetric(historyEntriesDesc, prometheus.CounterValue, float64(n), k[0], k[1])
	}
}
