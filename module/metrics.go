package module

import (
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// metrics holds the module's collectors. They are created once per process
// and registered in each config's registry, so their values survive
// `caddy reload` (Caddy makes a new registry per config load).
var metrics = struct {
	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	zoneOps       *prometheus.CounterVec
	rndcCommands  *prometheus.CounterVec
	rndcDuration  *prometheus.HistogramVec
	dnsUpdates    *prometheus.CounterVec
	dnsDuration   prometheus.Histogram
	authFailures  *prometheus.CounterVec
	buildInfo     *prometheus.GaugeVec
	streamsFull   prometheus.Counter
	imports       *prometheus.GaugeVec
	zones         zonesCollector
	registerOnce  sync.Once
	allCollectors []prometheus.Collector
}{
	httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_http_requests_total",
		Help: "API requests answered, by method, route template and status code.",
	}, []string{"method", "route", "status"}),
	httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "zoneapi_http_request_duration_seconds",
		Help:    "Time to answer API requests, by method and route template.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"method", "route"}),
	zoneOps: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_zone_operations_total",
		Help: "Zone and record operations, by operation and result (success or error).",
	}, []string{"operation", "result"}),
	rndcCommands: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_rndc_commands_total",
		Help: "Control-channel commands sent to named, by command and result (success or error).",
	}, []string{"command", "result"}),
	rndcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "zoneapi_rndc_command_duration_seconds",
		Help:    "Round-trip time of control-channel commands, by command.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"command"}),
	dnsUpdates: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_dns_updates_total",
		Help: "RFC 2136 UPDATE messages sent to named, by result (success or the DNS rcode in lower case).",
	}, []string{"result"}),
	dnsDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "zoneapi_dns_update_duration_seconds",
		Help:    "Round-trip time of RFC 2136 UPDATE messages.",
		Buckets: []float64{.0002, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
	}),
	authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_auth_failures_total",
		Help: "Requests refused by authentication, by reason.",
	}, []string{"reason"}),
	streamsFull: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "zoneapi_events_streams_refused_total",
		Help: "Event-stream requests refused with 503 because max_streams streams were open (zoneapi_events_stream_clients counts the open ones).",
	}),
	imports: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zoneapi_imports",
		Help: "Imports running (state running) and imports refused so far because maxImports or maxImportsPerIdentity were running (state refused; docs/import.md).",
	}, []string{"state"}),
	buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "zoneapi_build_info",
		Help: "Always 1; the version label is the zone API's version.",
	}, []string{"version"}),
}

func init() {
	metrics.buildInfo.WithLabelValues(Version).Set(1)
	metrics.allCollectors = []prometheus.Collector{
		metrics.httpRequests, metrics.httpDuration, metrics.zoneOps, metrics.rndcCommands,
		metrics.rndcDuration, metrics.dnsUpdates, metrics.dnsDuration, metrics.authFailures,
		metrics.buildInfo, metrics.streamsFull, metrics.imports, &metrics.zones,
	}
	metrics.allCollectors = append(metrics.allCollectors, sharedhistory.Collectors()...)
	// The event stream's and the webhooks' (package events).
	metrics.allCollectors = append(metrics.allCollectors, events.Collectors(openHistories)...)
}

// registerMetrics registers the process-wide collectors in reg, the
// registry of one config load. A collector that is already registered
// (two zone_api handlers in one config) is fine.
func registerMetrics(reg *prometheus.Registry) error {
	if reg == nil {
		return nil
	}
	for _, c := range metrics.allCollectors {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return err
			}
		}
	}
	return nil
}

// result is the label value of an outcome.
func result(err error) string {
	if err != nil {
		return "error"
	}
	return "success"
}

// observeRequest counts one answered API request.
func observeRequest(method, route string, status int, d time.Duration) {
	metrics.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	metrics.httpDuration.WithLabelValues(method, route).Observe(d.Seconds())
}

// observeZoneOp counts one zone or record operation.
func observeZoneOp(operation string, err error) {
	metrics.zoneOps.WithLabelValues(operation, result(err)).Inc()
}

// observeDNSUpdate counts one UPDATE message; rcode is "" on success.
func observeDNSUpdate(rcode string, d time.Duration) {
	if rcode == "" {
		rcode = "success"
	}
	metrics.dnsUpdates.WithLabelValues(rcode).Inc()
	metrics.dnsDuration.Observe(d.Seconds())
}

// zonesCollector reports zoneapi_zones{type} from the zone indexes at
// scrape time, so the gauge is always current (not only after a list). It
// counts the zone directories of the stores in storePool, those some
// provisioned handler uses, opening them on first use, never during
// Provision.
type zonesCollector struct{}

var zonesDesc = prometheus.NewDesc("zoneapi_zones", "Zones managed through the API, by type (primary or secondary).", []string{"type"}, nil)

// Describe implements prometheus.Collector.
func (*zonesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- zonesDesc }

// Collect implements prometheus.Collector.
func (c *zonesCollector) Collect(ch chan<- prometheus.Metric) {
	var stores []*zoneservice.Directory
	storePool.Range(func(_, v any) bool {
		stores = append(stores, v.(*zoneservice.Directory))
		return true
	})
	counts := map[string]int{"primary": 0, "secondary": 0}
	for _, ss := range stores {
		s, err := ss.Store()
		if err != nil {
			continue // reported by /api/v1/ready
		}
		for typ, n := range s.Counts() {
			counts[typ] += n
		}
	}
	for typ, n := range counts {
		ch <- prometheus.MustNewConstMetric(zonesDesc, prometheus.GaugeValue, float64(n), typ)
	}
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
