package events

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// metrics holds the package's collectors, created once per process; the
// zone_api handler registers Collectors in each configuration's
// registry. The webhook label is the webhook's configured name (bounded
// by the configuration), never a zone.
var metrics = struct {
	delivered, retried, deadLettered, lost *prometheus.CounterVec
	streamClients                          prometheus.Gauge
	streamed                               prometheus.Counter
}{
	delivered: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_events_delivered_total",
		Help: "Events a webhook receiver acknowledged (2xx), by webhook.",
	}, []string{"webhook"}),
	retried: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_events_retried_total",
		Help: "Failed webhook delivery attempts that were scheduled to be tried again, by webhook.",
	}, []string{"webhook"}),
	deadLettered: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_events_dead_lettered_total",
		Help: "Events that became dead letters (failed past the retry limit, or held behind one of their zone), by webhook.",
	}, []string{"webhook"}),
	lost: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_events_lost_total",
		Help: "Events the history's retention dropped before a webhook got them, by webhook.",
	}, []string{"webhook"}),
	streamClients: prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "zoneapi_events_stream_clients",
		Help: "Clients connected to the event stream (GET /api/v1/events).",
	}),
	streamed: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zoneapi_events_streamed_total",
		Help: "Events sent to event-stream clients.",
	}),
}

// deadLettersDesc is the gauge of the events waiting as dead letters.
var deadLettersDesc = prometheus.NewDesc("zoneapi_events_dead_letters", "Events waiting as dead letters until retried, by webhook.", []string{"webhook"}, nil)

// deadLettersCollector reports zoneapi_events_dead_letters from the
// running deliverers at scrape time.
type deadLettersCollector struct{}

// Describe implements prometheus.Collector.
func (deadLettersCollector) Describe(ch chan<- *prometheus.Desc) { ch <- deadLettersDesc }

// Collect implements prometheus.Collector.
func (deadLettersCollector) Collect(ch chan<- prometheus.Metric) {
	byName := map[string]int{}
	var ds []*Deliverer
	deliverers.Range(func(_, v any) bool {
		ds = append(ds, v.(*pooledDeliverer).d)
		return true
	})
	for _, d := range ds {
		if d.Status().State == PhaseStandby {
			continue // its holder reports it
		}
		byName[d.hook.Name] += d.deadLetters()
	}
	for name, n := range byName {
		ch <- prometheus.MustNewConstMetric(deadLettersDesc, prometheus.GaugeValue, float64(n), name)
	}
}

// The history's metrics, read from the open Logs at scrape time.
var (
	recordedDesc = prometheus.NewDesc("zoneapi_events_recorded_total", "Events (change history entries) ever recorded: the history's last id, kept across restarts.", nil, nil)
	sizeDesc     = prometheus.NewDesc("zoneapi_history_size_bytes", "Bytes of the change history on disk (retention bounds it).", nil, nil)
	segmentsDesc = prometheus.NewDesc("zoneapi_history_segments", "Segment files of the change history.", nil, nil)
	firstDesc    = prometheus.NewDesc("zoneapi_history_first_id", "The oldest event id the change history still holds (retention drops older ones).", nil, nil)
)

// HistoryMeter is what the metrics read of an open change history.
type HistoryMeter interface {
	frontend.ChangeBounds
	frontend.ChangeSizer
}

// historyCollector reports the history's size and the events recorded,
// summed over the zone directories whose history is open (openLogs; nil:
// none).
type historyCollector struct {
	openLogs func() []HistoryMeter
}

// Describe implements prometheus.Collector.
func (historyCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- recordedDesc
	ch <- sizeDesc
	ch <- segmentsDesc
	ch <- firstDesc
}

// Collect implements prometheus.Collector.
func (c historyCollector) Collect(ch chan<- prometheus.Metric) {
	if c.openLogs == nil {
		return
	}
	logs := c.openLogs()
	if len(logs) == 0 {
		return
	}
	var recorded, bytes, segments, first float64
	for i, l := range logs {
		recorded += float64(l.Last())
		b, n := l.Size()
		bytes += float64(b)
		segments += float64(n)
		if f := float64(l.First()); i == 0 || f < first {
			first = f
		}
	}
	ch <- prometheus.MustNewConstMetric(recordedDesc, prometheus.CounterValue, recorded)
	ch <- prometheus.MustNewConstMetric(sizeDesc, prometheus.GaugeValue, bytes)
	ch <- prometheus.MustNewConstMetric(segmentsDesc, prometheus.GaugeValue, segments)
	ch <- prometheus.MustNewConstMetric(firstDesc, prometheus.GaugeValue, first)
}

// Collectors returns the package's collectors, to register in a
// configuration's metrics registry; openLogs returns the change histories
// open in the process (sharedhistory.OpenLogs), read at scrape time.
func Collectors(openLogs func() []HistoryMeter) []prometheus.Collector {
	return []prometheus.Collector{
		metrics.delivered, metrics.retried, metrics.deadLettered, metrics.lost,
		metrics.streamClients, metrics.streamed, deadLettersCollector{}, historyCollector{openLogs: openLogs},
	}
}
