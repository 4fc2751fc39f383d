// Package apimetrics holds zone_api's Prometheus collectors: the API's
// requests, zone operations, control commands, DNS updates,
// authentication failures, refused event streams, imports, the build and
// the zones managed. They are created once per process and registered in
// each config's registry (Register), so their values survive `caddy
// reload` (Caddy makes a new registry per config load); the Observe and
// Count functions are the one place each is incremented.
package apimetrics

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
	"github.com/zoneapi/caddy-zoneapi/internal/version"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// latencyBuckets are the buckets of the request and control-command
// durations (seconds): from half a millisecond to ten seconds.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// metrics holds the collectors, created once per process.
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
	allCollectors []prometheus.Collector
}{
	httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "zoneapi_http_requests_total",
		Help: "API requests answered, by method, route template and status code.",
	}, []string{"method", "route", "status"}),
	httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "zoneapi_http_request_duration_seconds",
		Help:    "Time to answer API requests, by method and route template.",
		Buckets: latencyBuckets,
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
		Buckets: latencyBuckets,
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
	metrics.buildInfo.WithLabelValues(version.Version).Set(1)
	metrics.allCollectors = []prometheus.Collector{
		metrics.httpRequests, metrics.httpDuration, metrics.zoneOps, metrics.rndcCommands,
		metrics.rndcDuration, metrics.dnsUpdates, metrics.dnsDuration, metrics.authFailures,
		metrics.buildInfo, metrics.streamsFull, metrics.imports,
	}
	metrics.allCollectors = append(metrics.allCollectors, sharedhistory.Collectors()...)
}

// Directories is what the zoneapi_zones gauge counts the zones of: the
// zone directories some provisioned handler uses, a caddy.UsagePool whose
// values are *zoneservice.Directory.
type Directories interface {
	Range(func(key, value any) bool)
}

// Register registers the process-wide collectors in reg, the registry of
// one config load, with zoneapi_zones over dirs and the collectors in
// more (the event stream's and the webhooks', package events). A
// collector that is already registered (two zone_api handlers in one
// config) is fine; a nil reg registers nothing.
func Register(reg *prometheus.Registry, dirs Directories, more ...prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	all := append(append([]prometheus.Collector{zonesCollector{dirs}}, metrics.allCollectors...), more...)
	for _, c := range all {
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

// ObserveRequest counts one answered API request.
func ObserveRequest(method, route string, status int, d time.Duration) {
	metrics.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	metrics.httpDuration.WithLabelValues(method, route).Observe(d.Seconds())
}

// ObserveZoneOp counts one zone or record operation; err is nil when it
// succeeded.
func ObserveZoneOp(operation string, err error) {
	metrics.zoneOps.WithLabelValues(operation, result(err)).Inc()
}

// ObserveControl counts and times one control command.
func ObserveControl(e rndc.CommandEvent) {
	metrics.rndcCommands.WithLabelValues(e.Verb, result(e.Err)).Inc()
	metrics.rndcDuration.WithLabelValues(e.Verb).Observe(e.Duration.Seconds())
}

// CountDNSUpdate counts one UPDATE by its answer (a negative rcode: none),
// the DNS clients' Update hook.
func CountDNSUpdate(rcode int, d time.Duration) {
	switch {
	case rcode < 0:
		observeDNSUpdate("no_answer", d)
	case rcode == 0: // NOERROR
		observeDNSUpdate("", d)
	default:
		observeDNSUpdate(strings.ToLower(dnsupdate.RcodeName(rcode)), d)
	}
}

// observeDNSUpdate counts one UPDATE message; rcode is "" on success.
func observeDNSUpdate(rcode string, d time.Duration) {
	if rcode == "" {
		rcode = "success"
	}
	metrics.dnsUpdates.WithLabelValues(rcode).Inc()
	metrics.dnsDuration.Observe(d.Seconds())
}

// CountAuthFailure counts a request refused by authentication, by its
// reason.
func CountAuthFailure(reason string) { metrics.authFailures.WithLabelValues(reason).Inc() }

// CountStreamRefused counts an event-stream request refused because
// max_streams streams were open.
func CountStreamRefused() { metrics.streamsFull.Inc() }

// AddImports adds delta to the imports of state (running or refused), the
// import gate's hook.
func AddImports(state string, delta float64) {
	metrics.imports.WithLabelValues(state).Add(delta)
}

// zonesCollector reports zoneapi_zones{type} from the zone indexes at
// scrape time, so the gauge is always current (not only after a list). It
// counts the zones of the directories in dirs, those some provisioned
// handler uses, opening them on first use, never during Provision.
type zonesCollector struct{ dirs Directories }

var zonesDesc = prometheus.NewDesc("zoneapi_zones", "Zones managed through the API, by type (primary or secondary).", []string{"type"}, nil)

// Describe implements prometheus.Collector.
func (zonesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- zonesDesc }

// Collect implements prometheus.Collector.
func (c zonesCollector) Collect(ch chan<- prometheus.Metric) {
	var stores []*zoneservice.Directory
	if c.dirs != nil {
		c.dirs.Range(func(_, v any) bool {
			stores = append(stores, v.(*zoneservice.Directory))
			return true
		})
	}
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
