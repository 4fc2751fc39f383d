package events

import (
	"fmt"
	"time"
)

// CheckWebhooks fills in the defaults of the configured webhooks (their
// placeholders already expanded) and checks them (Webhook.Check), and
// that no two share a name; it touches neither the disk nor the network.
func CheckWebhooks(hooks []Webhook) ([]Webhook, error) {
	names := map[string]bool{}
	for i := range hooks {
		w := &hooks[i]
		if err := w.Check(); err != nil {
			return nil, fmt.Errorf("events: %v", err)
		}
		if names[w.Name] {
			return nil, fmt.Errorf("events: two webhooks are named %s; give them names", w.Name)
		}
		names[w.Name] = true
	}
	return hooks, nil
}

// SetLimits sets the event stream's heartbeat and limits on e; a limit
// of zero is its default (DefaultMaxStreams,
// DefaultMaxStreamsPerIdentity).
func (e *API) SetLimits(heartbeat time.Duration, maxStreams, maxStreamsPerIdentity int) {
	e.Heartbeat = heartbeat
	e.MaxStreams, e.MaxStreamsPerIdentity = DefaultMaxStreams, DefaultMaxStreamsPerIdentity
	if maxStreams > 0 {
		e.MaxStreams = maxStreams
	}
	if maxStreamsPerIdentity > 0 {
		e.MaxStreamsPerIdentity = maxStreamsPerIdentity
	}
}
