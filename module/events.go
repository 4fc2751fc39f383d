package module

import (
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
	"github.com/zoneapi/caddy-zoneapi/internal/apirouter"
	"github.com/zoneapi/caddy-zoneapi/rest"
)

// EventsConfig configures the change events (docs/events.md): package
// config's EventsConfig.
type EventsConfig = config.EventsConfig

// WebhookConfig is one webhook receiver (config.WebhookConfig).
type WebhookConfig = config.WebhookConfig

// DefaultMaxStreams is the default of EventsConfig.MaxStreams.
const DefaultMaxStreams = events.DefaultMaxStreams

// DefaultMaxStreamsPerIdentity is the default of
// EventsConfig.MaxStreamsPerIdentity.
const DefaultMaxStreamsPerIdentity = events.DefaultMaxStreamsPerIdentity

// eventsAPI is the events endpoints' front (package events).
type eventsAPI = events.API

// newEventsAPI returns the events front of h (its routes are listed
// before Provision too, for the specification tests): package events'
// endpoints, over h's history, identities and REST bodies.
func newEventsAPI(h *Handler) *eventsAPI {
	e := &events.API{
		History: func() (frontend.ChangeLog, error) {
			b, err := h.getBackend()
			if err != nil || b.Root().History == nil {
				return nil, err // history off: a nil ChangeLog, not a nil *history.Log in one
			}
			return b.Root().History, nil
		},
		Identity:    func(r *http.Request) *auth.Identity { return auth.StateOf(r).ID },
		WriteJSON:   rest.WriteJSON,
		WriteError:  writeError,
		ProblemList: rest.ProblemList,
		StreamUntil: streamUntil,
		Logger:      h.logger, ZoneDir: h.conf.ZoneDir, AuthDisabled: h.authDisabled,
		StreamRefused: apimetrics.CountStreamRefused,
	}
	e.SetLimits(h.Events.Limits())
	return e
}

// webhooks are the configured webhooks, their placeholders expanded,
// checked (events.CheckWebhooks).
func webhooks(c *EventsConfig) ([]events.Webhook, error) {
	var hooks []events.Webhook
	for _, wc := range c.Expanded() {
		hooks = append(hooks, events.Webhook{URL: wc.URL, Name: wc.Name, Secret: wc.Secret, Types: wc.Types, Zones: wc.Zones,
			Timeout: time.Duration(wc.Timeout), RetryMin: time.Duration(wc.RetryMin), RetryMax: time.Duration(wc.RetryMax), DeadAfter: time.Duration(wc.DeadAfter)})
	}
	return events.CheckWebhooks(hooks)
}

// eventsRoutes lists the events endpoints.
func eventsRoutes(e *eventsAPI) []apirouter.Route {
	return []apirouter.Route{
		{Method: http.MethodGet, Template: apiPrefix + "/events", Handle: func(w http.ResponseWriter, r *http.Request, _ apirouter.Params) { e.HandleStream(w, r) }},
		{Method: http.MethodGet, Template: apiPrefix + "/events/webhooks", Handle: func(w http.ResponseWriter, r *http.Request, _ apirouter.Params) { e.HandleWebhooks(w, r) }},
		{Method: http.MethodPost, Template: apiPrefix + "/events/webhooks/{webhook}/retry", Handle: func(w http.ResponseWriter, r *http.Request, p apirouter.Params) { e.HandleRetry(w, r, p.Name) }, Op: "webhook_retry"},
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
	if id := auth.StateOf(r).ID; id != nil && !id.Expires.IsZero() && (until.IsZero() || id.Expires.Before(until)) {
		until = id.Expires
	}
	return until
}
