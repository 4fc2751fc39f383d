package events

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

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DefaultMaxStreams is the default of API.MaxStreams.
const DefaultMaxStreams = 100

// DefaultMaxStreamsPerIdentity is the default of
// API.MaxStreamsPerIdentity.
const DefaultMaxStreamsPerIdentity = 10

// MaxStreamZones is the most zones one event stream may name (?zone=):
// every event is matched against the list, and it was once made with a
// search of the list per value, so a query of tens of thousands of zone
// names (as many as a request line holds) cost seconds of CPU before the
// stream began, and its replay a scan of the list per entry.
const MaxStreamZones = 100

// streamRetryAfter is the Retry-After of a stream refused because
// MaxStreams are open.
const streamRetryAfter = 10 * time.Second

// API is the change events' endpoints of the REST API: the event stream
// (HandleStream), the webhooks' state (HandleWebhooks) and the retry of
// their dead letters (HandleRetry); it runs the webhooks' deliverers
// while its host's configuration generation is loaded (Start). It knows
// of its host, the zone_api Caddy module, only what its fields give it:
// the host routes, authenticates and authorises each request before a
// handler runs, and writes the REST API's bodies.
type API struct {
	// History returns the change history, nil when it is off; an error
	// when the zone service cannot be set up (tried again later).
	History func() (frontend.ChangeLog, error)
	// Identity is the request's identity, nil without one.
	Identity func(*http.Request) *auth.Identity
	// WriteJSON and WriteError answer in the REST API's bodies;
	// ProblemList joins a request's problems for its 400.
	WriteJSON   func(w http.ResponseWriter, status int, v any)
	WriteError  func(w http.ResponseWriter, status int, format string, args ...any)
	ProblemList func([]string) string
	// DefaultView, when set, is the default view's name ("" without
	// one): the view the scopes see the events recorded without a view
	// in (Visible).
	DefaultView func() string
	// StreamRefused is told of each stream refused with 503 (the host's
	// metric).
	StreamRefused func()
	// StreamUntil is when the stream of a request ends cleanly (zero:
	// not before the client goes or the server stops): the host knows
	// the server's write timeout and the credential's expiry.
	StreamUntil func(r *http.Request, now time.Time) time.Time
	Logger      *zap.Logger
	// ZoneDir is the zone directory; the webhooks' state is kept in its
	// .zoneapi/events.
	ZoneDir string
	// Heartbeat is how often an idle stream sends a keep-alive comment
	// (zero: DefaultHeartbeat).
	Heartbeat time.Duration
	// MaxStreams bounds the streams open at once, MaxStreamsPerIdentity
	// those of one identity (not applied when AuthDisabled: every request
	// is then the same anonymous one).
	MaxStreams, MaxStreamsPerIdentity int
	AuthDisabled                      bool

	// streams counts the open streams.
	streams atomic.Int64
	hooks   []Webhook
	// done is closed when the generation is unloaded (Start's context):
	// streams end then, and the deliverers are released.
	done <-chan struct{}

	mu sync.Mutex
	// byIdentity counts the streams of each identity.
	byIdentity map[string]int
	deliverers []*Deliverer
	releases   []func()
	started    bool // ensure ran (the deliverers started, or cannot)
	stopped    bool // the generation was unloaded: never start
	// shutdowns maps each HTTP server that serves a stream to the channel
	// closed when it begins to shut down (shutdownSignal).
	shutdowns map[*http.Server]chan struct{}
}

// Start runs the webhooks' deliverers until ctx ends (the host's
// Cleanup), once the history is up. It waits a little first, so that
// `caddy validate` (Provision, then Cleanup) touches nothing; a request
// for the webhooks' state starts them at once.
func (e *API) Start(ctx context.Context, hooks []Webhook) {
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
// means the zone service is not up (tried again later).
func (e *API) ensure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started || e.stopped || len(e.hooks) == 0 {
		return nil
	}
	log, err := e.History()
	if err != nil {
		return err
	}
	e.started = true
	if log == nil {
		e.Logger.Error("the webhooks need the change history, which is off: nothing is delivered")
		return nil
	}
	dir := filepath.Join(e.ZoneDir, ".zoneapi", "events")
	for _, w := range e.hooks {
		d, release, err := Start(log, dir, w, e.Logger.Named("events"))
		if err != nil {
			e.Logger.Error("starting a webhook", zap.String("webhook", w.Name), zap.Error(err))
			continue
		}
		e.deliverers = append(e.deliverers, d)
		e.releases = append(e.releases, release)
	}
	return nil
}

// HandleStream serves GET /api/v1/events: the change history's events
// after Last-Event-ID (or lastEventId), then the live ones, as
// Server-Sent Events; the token's scopes filter them as they filter
// record reads (Visible), and the zone and type parameters (repeatable)
// narrow them.
func (e *API) HandleStream(w http.ResponseWriter, r *http.Request) {
	log, err := e.History()
	if err != nil {
		e.Logger.Error("backend unavailable", zap.Error(err))
		e.WriteError(w, http.StatusServiceUnavailable, "the zone service is not available: %v", err)
		return
	}
	if log == nil {
		e.WriteError(w, http.StatusNotFound, "the change history is off (history off in the configuration), so there are no events")
		return
	}
	q := r.URL.Query()
	var problems []string
	var f zonemodel.ChangeFilter
	seen := map[string]bool{}
	for _, v := range q["zone"] {
		z, err := zonemodel.NormalizeZoneName(v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("zone %q: %v", v, err))
			continue
		}
		if !seen[z] {
			seen[z] = true
			f.Zones = append(f.Zones, z) // each once: every event is matched against the list
		}
	}
	if len(f.Zones) > MaxStreamZones {
		problems = append(problems, fmt.Sprintf("zone: %d zones, at most %d (a stream without zone follows every zone the token may read)", len(f.Zones), MaxStreamZones))
	}
	for _, v := range q["type"] {
		for _, t := range strings.Split(v, ",") {
			if !ValidType(t) {
				problems = append(problems, fmt.Sprintf("type: %q is not an event type (%s)", t, strings.Join(zonemodel.ChangeTypes, ", ")))
				continue // not kept: the list holds at most the event types
			}
			if !slices.Contains(f.Types, t) {
				f.Types = append(f.Types, t)
			}
		}
	}
	after, ok := AfterFromRequest(r, log)
	if !ok {
		problems = append(problems, "Last-Event-ID: not an event id (the id: of an event this stream sent)")
	}
	if len(problems) > 0 {
		e.WriteError(w, http.StatusBadRequest, "invalid event stream request: %s", e.ProblemList(problems))
		return
	}
	id := e.Identity(r)
	who := ""
	if id != nil && !e.AuthDisabled {
		who = id.ID
	}
	if !e.admitIdentity(who) {
		e.StreamRefused()
		w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter.Seconds())))
		e.WriteError(w, http.StatusServiceUnavailable, "this identity has %d event streams open, the most one identity may (events max_streams_per_identity); close one, or try again later", e.MaxStreamsPerIdentity)
		return
	}
	defer e.leaveIdentity(who)
	if !e.admit() {
		e.StreamRefused()
		w.Header().Set("Retry-After", strconv.Itoa(int(streamRetryAfter.Seconds())))
		e.WriteError(w, http.StatusServiceUnavailable, "%d event streams are open, the most this server serves at once (events max_streams); try again later", e.MaxStreams)
		return
	}
	defer e.streams.Add(-1)
	var g *auth.Grant
	if id != nil {
		g = id.Grant
	}
	s := &Stream{
		Source: log, After: after, Filter: f, Heartbeat: e.Heartbeat,
		Visible: Visible(g, log, nil, e.defaultView()),
		Stop:    anyClosed(r.Context().Done(), e.done, e.shutdownSignal(r)),
	}
	s.Until = e.StreamUntil(r, time.Now())
	if err := s.Serve(w, r); err != nil {
		e.Logger.Debug("event stream ended", zap.Error(err))
	}
}

// defaultView is the default view's name (DefaultView), "" without one.
func (e *API) defaultView() string {
	if e.DefaultView == nil {
		return ""
	}
	return e.DefaultView()
}

// admit counts one more open stream and reports true, unless MaxStreams
// are open.
func (e *API) admit() bool {
	for {
		n := e.streams.Load()
		if n >= int64(e.MaxStreams) {
			return false
		}
		if e.streams.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// admitIdentity counts one more stream of the identity who and reports
// true, unless it holds MaxStreamsPerIdentity already. The anonymous
// identity ("", without authentication) is not counted.
func (e *API) admitIdentity(who string) bool {
	if who == "" {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byIdentity[who] >= e.MaxStreamsPerIdentity {
		return false
	}
	if e.byIdentity == nil {
		e.byIdentity = map[string]int{}
	}
	e.byIdentity[who]++
	return true
}

// leaveIdentity counts a stream of who admitIdentity admitted as closed.
func (e *API) leaveIdentity(who string) {
	if who == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byIdentity[who]--; e.byIdentity[who] <= 0 {
		delete(e.byIdentity, who)
	}
}

// webhookList is the body of GET /api/v1/events/webhooks.
type webhookList struct {
	Webhooks []Status `json:"webhooks"`
}

// HandleWebhooks serves GET /api/v1/events/webhooks: each webhook's
// delivery state and dead letters.
func (e *API) HandleWebhooks(w http.ResponseWriter, r *http.Request) {
	body := webhookList{Webhooks: []Status{}}
	for _, d := range e.current() {
		body.Webhooks = append(body.Webhooks, d.Status())
	}
	e.WriteJSON(w, http.StatusOK, body)
}

// retryAnswer is the body of POST /api/v1/events/webhooks/{webhook}/retry.
type retryAnswer struct {
	Webhook string `json:"webhook"`
	// Zones is how many dead zones were put back in the queue.
	Zones int `json:"zones"`
}

// HandleRetry serves POST /api/v1/events/webhooks/{webhook}/retry: the
// webhook's dead letters go back in the queue, ahead of newer events, and
// a delivery waiting for its next attempt is tried now.
func (e *API) HandleRetry(w http.ResponseWriter, r *http.Request, name string) {
	for _, d := range e.current() {
		if d.Name() != name {
			continue
		}
		n, err := d.Retry()
		if err != nil {
			e.WriteError(w, http.StatusConflict, "webhook %s: %v", name, err)
			return
		}
		e.WriteJSON(w, http.StatusOK, retryAnswer{Webhook: name, Zones: n})
		return
	}
	e.WriteError(w, http.StatusNotFound, "no webhook named %q is configured (GET /api/v1/events/webhooks lists them)", name)
}

// current returns the running deliverers, starting them if a request
// comes before Start did.
func (e *API) current() []*Deliverer {
	if err := e.ensure(); err != nil {
		e.Logger.Error("backend unavailable", zap.Error(err))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Deliverer(nil), e.deliverers...)
}

// shutdownSignal returns the channel closed when the request's server
// begins to shut down (nil when unknown): a Caddy reload or stop shuts the
// configuration's servers down and waits for their requests, so a stream
// must end then or the shutdown waits for the grace period. The servers
// are the configuration generation's, as e is.
func (e *API) shutdownSignal(r *http.Request) <-chan struct{} {
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
