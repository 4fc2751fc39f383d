package module

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// EventsConfig configures the change events (docs/events.md): the event
// stream GET /api/v1/events, always served while the change history is
// on, and the outbound webhooks. Delivery lives in package events; this
// is its configuration and HTTP mount.
type EventsConfig struct {
	// Heartbeat is how often an idle event stream sends a keep-alive
	// comment. Default 15s.
	Heartbeat caddy.Duration `json:"heartbeat,omitempty"`
	// MaxStreams is the most event streams open at once (each holds a
	// connection, a goroutine and a read of the history per change);
	// past it GET /api/v1/events answers 503 with Retry-After. Default
	// DefaultMaxStreams.
	MaxStreams int `json:"max_streams,omitempty"`
	// MaxStreamsPerIdentity is the most event streams one identity (a
	// token, a JWT subject, ...) holds open at once, so that one client
	// cannot take every stream: past it its next stream answers 503.
	// Not applied without authentication (DISABLE_AUTH), where every
	// client is the same anonymous one. Default
	// DefaultMaxStreamsPerIdentity.
	MaxStreamsPerIdentity int `json:"max_streams_per_identity,omitempty"`
	// Webhooks receive every event they select, signed as the Standard
	// Webhooks specification says.
	Webhooks []WebhookConfig `json:"webhooks,omitempty"`
}

// DefaultMaxStreams is the default of EventsConfig.MaxStreams.
const DefaultMaxStreams = 100

// DefaultMaxStreamsPerIdentity is the default of
// EventsConfig.MaxStreamsPerIdentity.
const DefaultMaxStreamsPerIdentity = 10

// streamRetryAfter is the Retry-After of a stream refused because
// MaxStreams are open.
const streamRetryAfter = 10 * time.Second

// WebhookConfig is one webhook receiver.
type WebhookConfig struct {
	// URL receives a POST of each event's JSON (http or https).
	URL string `json:"url"`
	// Name identifies the webhook in GET /api/v1/events/webhooks, its
	// retry route, the metrics and its state file. Default: wh- and 8
	// hex digits of the URL's SHA-256.
	Name string `json:"name,omitempty"`
	// Secret signs the deliveries: whsec_ followed by the base64 of 24
	// to 64 random bytes. Use a placeholder ({env.X} or {file.path}).
	Secret string `json:"secret"`
	// Types, if set, are the event types delivered (zone.created,
	// records.changed, …). Default: all.
	Types []string `json:"types,omitempty"`
	// Zones, if set, are the zones whose events are delivered: names or
	// *.<domain>. Default: all.
	Zones []string `json:"zones,omitempty"`
	// Timeout bounds one delivery attempt. Default 10s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// RetryMin and RetryMax bound the exponential backoff between
	// attempts. Defaults 1s and 5m.
	RetryMin caddy.Duration `json:"retry_min,omitempty"`
	RetryMax caddy.Duration `json:"retry_max,omitempty"`
	// DeadAfter is how long an event is retried before it becomes a
	// dead letter (with the later events of its zone, until retried).
	// Default 24h.
	DeadAfter caddy.Duration `json:"dead_after,omitempty"`
}

// unmarshalCaddyfile reads
//
//	events {
//		heartbeat <duration>
//		max_streams <n>
//		max_streams_per_identity <n>
//		webhook <url> {
//			name       <name>
//			secret     <whsec_…>
//			types      <type>...
//			zones      <zone>...
//			timeout    <duration>
//			retry_min  <duration>
//			retry_max  <duration>
//			dead_after <duration>
//		}
//	}
func (c *EventsConfig) unmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	dur := func(what string) (caddy.Duration, error) {
		var v string
		if !d.AllArgs(&v) {
			return 0, d.ArgErr()
		}
		t, err := caddy.ParseDuration(v)
		if err != nil || t <= 0 {
			return 0, d.Errf("events %s: want a positive duration, got %q", what, v)
		}
		return caddy.Duration(t), nil
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "heartbeat":
			v, err := dur("heartbeat")
			if err != nil {
				return err
			}
			c.Heartbeat = v
		case "max_streams", "max_streams_per_identity":
			opt, v := d.Val(), ""
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return d.Errf("events %s: want a positive integer, got %q", opt, v)
			}
			if opt == "max_streams" {
				c.MaxStreams = n
			} else {
				c.MaxStreamsPerIdentity = n
			}
		case "webhook":
			var w WebhookConfig
			if !d.NextArg() {
				return d.ArgErr()
			}
			w.URL = d.Val()
			if d.NextArg() {
				return d.ArgErr()
			}
			for n := d.Nesting(); d.NextBlock(n); {
				var err error
				switch d.Val() {
				case "name":
					if !d.AllArgs(&w.Name) {
						return d.ArgErr()
					}
				case "secret":
					if !d.AllArgs(&w.Secret) {
						return d.ArgErr()
					}
				case "types":
					if w.Types = d.RemainingArgs(); len(w.Types) == 0 {
						return d.ArgErr()
					}
				case "zones":
					if w.Zones = d.RemainingArgs(); len(w.Zones) == 0 {
						return d.ArgErr()
					}
				case "timeout":
					w.Timeout, err = dur("timeout")
				case "retry_min":
					w.RetryMin, err = dur("retry_min")
				case "retry_max":
					w.RetryMax, err = dur("retry_max")
				case "dead_after":
					w.DeadAfter, err = dur("dead_after")
				default:
					return d.Errf("events webhook: unrecognized subdirective %q", d.Val())
				}
				if err != nil {
					return err
				}
			}
			if w.Secret == "" {
				return d.Errf("events webhook %s: a secret is required", w.URL)
			}
			c.Webhooks = append(c.Webhooks, w)
		default:
			return d.Errf("events: unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// webhooks expands the placeholders of the configured webhooks and
// checks them; it touches neither the disk nor the network.
func (c *EventsConfig) webhooks() ([]events.Webhook, error) {
	if c == nil {
		return nil, nil
	}
	repl := caddy.NewReplacer()
	var out []events.Webhook
	names := map[string]bool{}
	for _, wc := range c.Webhooks {
		w := events.Webhook{
			URL: repl.ReplaceKnown(wc.URL, ""), Name: wc.Name, Secret: repl.ReplaceKnown(wc.Secret, ""),
			Types: append([]string(nil), wc.Types...), Zones: append([]string(nil), wc.Zones...),
			Timeout: time.Duration(wc.Timeout), RetryMin: time.Duration(wc.RetryMin), RetryMax: time.Duration(wc.RetryMax),
			DeadAfter: time.Duration(wc.DeadAfter),
		}
		if err := w.Check(); err != nil {
			return nil, fmt.Errorf("events: %v", err)
		}
		if names[w.Name] {
			return nil, fmt.Errorf("events: two webhooks are named %s; give them names", w.Name)
		}
		names[w.Name] = true
		out = append(out, w)
	}
	return out, nil
}

// eventsAPI serves the event stream and the webhooks' state, and runs
// the webhooks' deliverers while its configuration generation is loaded.
type eventsAPI struct {
	backend   func() (*backend, error)
	logger    *zap.Logger
	heartbeat time.Duration
	hooks     []events.Webhook
	// maxStreams bounds the streams open at once; streams counts them.
	maxStreams int
	streams    atomic.Int64
	// perIdentity bounds the streams one identity holds open; byIdentity
	// counts them (guarded by mu).
	perIdentity int
	byIdentity  map[string]int
	// authDisabled: every request is the anonymous identity, so streams
	// are not counted by identity.
	authDisabled bool
	zoneDir      string
	// done is closed when the generation is unloaded (Cleanup): streams
	// end then, and the deliverers are released.
	done <-chan struct{}

	mu         sync.Mutex
	deliverers []*events.Deliverer
	releases   []func()
	started    bool // ensure ran (the deliverers started, or cannot)
	stopped    bool // the generation was unloaded: never start
	// shutdowns maps each HTTP server that serves a stream to the channel
	// closed when it begins to shut down (shutdownSignal).
	shutdowns map[*http.Server]chan struct{}
}

// newEventsAPI returns the events front of h (its routes are listed
// before Provision too, for the specification tests).
func newEventsAPI(h *Handler) *eventsAPI {
	e := &eventsAPI{backend: h.getBackend, logger: h.logger, zoneDir: h.zoneDir, maxStreams: DefaultMaxStreams,
		perIdentity: DefaultMaxStreamsPerIdentity, byIdentity: map[string]int{}, authDisabled: h.authDisabled}
	if h.Events != nil {
		e.heartbeat = time.Duration(h.Events.Heartbeat)
		if h.Events.MaxStreams > 0 {
			e.maxStreams = h.Events.MaxStreams
		}
		if h.Events.MaxStreamsPerIdentity > 0 {
			e.perIdentity = h.Events.MaxStreamsPerIdentity
		}
	}
	return e
}

// routes lists the events endpoints.
func (e *eventsAPI) routes() []route {
	return []route{
		{method: http.MethodGet, template: apiPrefix + "/events", handle: e.handleStream},
		{method: http.MethodGet, template: apiPrefix + "/events/webhooks", handle: e.handleWebhooks},
		{method: http.MethodPost, template: apiPrefix + "/events/webhooks/{webhook}/retry", handle: e.handleRetry, op: "webhook_retry"},
	}
}

// start runs the webhooks' deliverers until ctx ends (the handler's
// Cleanup), once the backend and its history are up. It waits a little
// first, so that `caddy validate` (Provision, then Cleanup) touches
// nothing; a request for the webhooks' state starts them at once.
func (e *eventsAPI) start(ctx context.Context, hooks []events.Webhook) {
	e.done, e.hooks = ctx.Done(), hooks
	if len(hooks) == 0 {
		return
	}
	go func() {
		for delay := 200 * time.Millisecond; ; delay = time.Second {
			select {
			case <-ctx.Done():
				e.mu.Lock()
				releases := e.releases
				e.releases, e.stopped = nil, true
				e.mu.Unlock()
				for _, release := range releases {
					release()
				}
				return
			case <-time.After(delay):
			}
			if e.ensure() == nil {
				delay = time.Hour // started (or cannot be): wait for ctx
			}
		}
	}()
}

// ensure starts the deliverers if they are not running yet; an error
// means the backend is not up (tried again later).
func (e *eventsAPI) ensure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started || e.stopped || len(e.hooks) == 0 {
		return nil
	}
	b, err := e.backend()
	if err != nil {
		return err
	}
	e.started = true
	log := b.svc.History
	if log == nil {
		e.logger.Error("the webhooks need the change history, which is off: nothing is delivered")
		return nil
	}
	dir := filepath.Join(e.zoneDir, ".zoneapi", "events")
	for _, w := range e.hooks {
		d, release, err := events.Start(log, dir, w, e.logger.Named("events"))
		if err != nil {
			e.logger.Error("starting a webhook", zap.String("webhook", w.Name), zap.Error(err))
			continue
		}
		e.deliverers = append(e.deliverers, d)
		e.releases = append(e.releases, release)
	}
	return nil
}

// handleStream serves GET /api/v1/events: the change history's events
// after Last-Event-ID (or lastEventId), then the live ones, as
// Server-Sent Events; the token's scopes filter them as they filter
// record reads, and the zone and type parameters (repeatable) narrow
// them.
func (e *eventsAPI) handleStream(w http.ResponseWriter, r *http.Request, _ params) {
	b, err := e.backend()
	if err != nil {
		e.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusServiceUnavailable, "the zone service is not available: %v", err)
		return
	}
	log := b.svc.History
	if log == nil {
		writeError(w, http.StatusNotFound, "the change history is off (history off in the configuration), so there are no events")
		return
	}
	q := r.URL.Query()
	var problems []string
	var f history.Filter
	for _, v := range q["zone"] {
		z, err := zonemodel.NormalizeZoneName(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("zone %q: %v", v, err))
		}
		if !slices.Contains(f.Zones, z) {
			f.Zones = append(f.Zones, z) // each once: every event is matched against the list
		}
	}
	for _, v := range q["type"] {
		for _, t := range strings.Split(v, ",") {
			if !validKind(t) {
				problems = append(problems, fmt.Sprintf("type: %q is not an event type (%s)", t, strings.Join(history.Types, ", ")))
			}
			if !slices.Contains(f.Types, t) {
				f.Types = append(f.Types, t)
			}
		}
	}
	after, ok := events.AfterFromRequest(r, log)
	if !ok {
		problems = append(problems, "Last-Event-ID: not an event id (the id: of an event this stream sent)")
	}
	if len(problems) > 0 {
		writeError(w, http.StatusBadRequest, "invalid event stream request: %s", problemList(problems))
		return
	}
	who := ""
	if id := authOf(r).id; id != nil && !e.authDisabled {
		who = id.ID
	}
	if !e.admitIdentity(who) {
		metrics.streamsFull.Inc()
		w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter.Seconds())))
		writeError(w, http.StatusServiceUnavailable, "this identity has %d event streams open, the most one identity may (events max_streams_per_identity); close one, or try again later", e.perIdentity)
		return
	}
	defer e.leaveIdentity(who)
	if !e.admit() {
		metrics.streamsFull.Inc()
		w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter.Seconds())))
		writeError(w, http.StatusServiceUnavailable, "%d event streams are open, the most this server serves at once (events max_streams); try again later", e.maxStreams)
		return
	}
	defer e.streams.Add(-1)
	s := &events.Stream{
		Source: log, After: after, Filter: f, Heartbeat: e.heartbeat,
		Visible: changesInScope(grantOf(r), log, nil),
		Stop:    anyClosed(r.Context().Done(), e.done, e.shutdownSignal(r)),
	}
	s.Until = streamUntil(r, time.Now())
	if err := s.Serve(w, r); err != nil {
		e.logger.Debug("event stream ended", zap.Error(err))
	}
}

// admit counts one more open stream and reports true, unless maxStreams
// are open.
func (e *eventsAPI) admit() bool {
	for {
		n := e.streams.Load()
		if n >= int64(e.maxStreams) {
			return false
		}
		if e.streams.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// admitIdentity counts one more stream of the identity who and reports
// true, unless it holds perIdentity already. The anonymous identity ("",
// without authentication) is not counted.
func (e *eventsAPI) admitIdentity(who string) bool {
	if who == "" {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byIdentity[who] >= e.perIdentity {
		return false
	}
	e.byIdentity[who]++
	return true
}

// leaveIdentity counts a stream of who admitIdentity admitted as closed.
func (e *eventsAPI) leaveIdentity(who string) {
	if who == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byIdentity[who]--; e.byIdentity[who] <= 0 {
		delete(e.byIdentity, who)
	}
}

// streamUntil is when the event stream of r ends cleanly (zero: not
// before the client goes or the server stops): before the server's write
// timeout would cut it, and when the identity's credential expires (a
// JWT's exp), so that an expired token does not go on reading changes;
// the client reconnects with Last-Event-ID and a valid credential.
func streamUntil(r *http.Request, now time.Time) time.Time {
	var until time.Time
	if srv, ok := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok && srv.WriteTimeout > 0 {
		until = now.Add(time.Duration(srv.WriteTimeout) * 9 / 10)
	}
	if id := authOf(r).id; id != nil && !id.Expires.IsZero() && (until.IsZero() || id.Expires.Before(until)) {
		until = id.Expires
	}
	return until
}

// webhookList is the body of GET /api/v1/events/webhooks.
type webhookList struct {
	Webhooks []events.Status `json:"webhooks"`
}

// handleWebhooks serves GET /api/v1/events/webhooks: each webhook's
// delivery state and dead letters.
func (e *eventsAPI) handleWebhooks(w http.ResponseWriter, r *http.Request, _ params) {
	body := webhookList{Webhooks: []events.Status{}}
	for _, d := range e.current() {
		body.Webhooks = append(body.Webhooks, d.Status())
	}
	writeJSON(w, http.StatusOK, body)
}

// retryAnswer is the body of POST /api/v1/events/webhooks/{webhook}/retry.
type retryAnswer struct {
	Webhook string `json:"webhook"`
	// Zones is how many dead zones were put back in the queue.
	Zones int `json:"zones"`
}

// handleRetry serves POST /api/v1/events/webhooks/{webhook}/retry: the
// webhook's dead letters go back in the queue, ahead of newer events, and
// a delivery waiting for its next attempt is tried now.
func (e *eventsAPI) handleRetry(w http.ResponseWriter, r *http.Request, p params) {
	for _, d := range e.current() {
		if d.Name() != p.name {
			continue
		}
		n, err := d.Retry()
		if err != nil {
			writeError(w, http.StatusConflict, "webhook %s: %v", p.name, err)
			return
		}
		writeJSON(w, http.StatusOK, retryAnswer{Webhook: p.name, Zones: n})
		return
	}
	writeError(w, http.StatusNotFound, "no webhook named %q is configured (GET /api/v1/events/webhooks lists them)", p.name)
}

// current returns the running deliverers, starting them if a request
// comes before start did.
func (e *eventsAPI) current() []*events.Deliverer {
	if err := e.ensure(); err != nil {
		e.logger.Error("backend unavailable", zap.Error(err))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*events.Deliverer(nil), e.deliverers...)
}

// shutdownSignal returns the channel closed when the request's server
// begins to shut down (nil when unknown): a Caddy reload or stop shuts the
// configuration's servers down and waits for their requests, so a stream
// must end then or the shutdown waits for the grace period. The servers
// are the configuration generation's, as e is.
func (e *eventsAPI) shutdownSignal(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ch, ok := e.shutdowns[srv]; ok {
		return ch
	}
	ch := make(chan struct{})
	if e.shutdowns == nil {
		e.shutdowns = map[*http.Server]chan struct{}{}
	}
	e.shutdowns[srv] = ch
	srv.RegisterOnShutdown(func() {
		e.mu.Lock()
		delete(e.shutdowns, srv)
		e.mu.Unlock()
		close(ch)
	})
	return ch
}

// anyClosed returns a channel closed when any of cs is (nil ones never
// are); the first is the request's context, which bounds the goroutine.
func anyClosed(cs ...<-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		switch len(cs) {
		case 3:
			select {
			case <-cs[0]:
			case <-cs[1]:
			case <-cs[2]:
			}
		default:
			panic("anyClosed takes three channels")
		}
		close(out)
	}()
	return out
}
