package module

import (
	"net/http"
	"time"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
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
		StreamUntil: events.StreamUntil,
		Logger:      h.logger, ZoneDir: h.conf.ZoneDir, AuthDisabled: h.authDisabled,
		StreamRefused: apimetrics.CountStreamRefused,
		DefaultView:   func() string { return h.views.rest().Default },
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
