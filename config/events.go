package config

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// EventsConfig configures the change events (docs/events.md): the
// event stream GET /api/v1/events, always served while the change
// history is on, and the outbound webhooks (package events).
type EventsConfig struct {
	// Heartbeat is how often an idle event stream sends a keep-alive
	// comment. Default 15s.
	Heartbeat caddy.Duration `json:"heartbeat,omitempty"`
	// MaxStreams is the most event streams open at once (each holds a
	// connection, a goroutine and a read of the history per change);
	// past it GET /api/v1/events answers 503 with Retry-After. Default
	// events.DefaultMaxStreams.
	MaxStreams int `json:"max_streams,omitempty"`
	// MaxStreamsPerIdentity is the most event streams one identity (a
	// token, a JWT subject, ...) holds open at once, so that one client
	// cannot take every stream: past it its next stream answers 503.
	// Not applied without authentication (DISABLE_AUTH), where every
	// client is the same anonymous one. Default
	// events.DefaultMaxStreamsPerIdentity.
	MaxStreamsPerIdentity int `json:"max_streams_per_identity,omitempty"`
	// Webhooks receive every event they select, signed as the Standard
	// Webhooks specification says.
	Webhooks []WebhookConfig `json:"webhooks,omitempty"`
}

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

// UnmarshalCaddyfile reads
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
func (c *EventsConfig) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
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

// Expanded returns the webhooks with the placeholders of their URL and
// secret expanded (c may be nil: none).
func (c *EventsConfig) Expanded() []WebhookConfig {
	if c == nil {
		return nil
	}
	repl := caddy.NewReplacer()
	out := make([]WebhookConfig, len(c.Webhooks))
	for i, wc := range c.Webhooks {
		wc.URL, wc.Secret = repl.ReplaceKnown(wc.URL, ""), repl.ReplaceKnown(wc.Secret, "")
		wc.Types, wc.Zones = append([]string(nil), wc.Types...), append([]string(nil), wc.Zones...)
		out[i] = wc
	}
	return out
}

// Limits returns the event stream's heartbeat and limits (zero: the
// default; c may be nil).
func (c *EventsConfig) Limits() (heartbeat time.Duration, maxStreams, maxStreamsPerIdentity int) {
	if c == nil {
		return 0, 0, 0
	}
	return time.Duration(c.Heartbeat), c.MaxStreams, c.MaxStreamsPerIdentity
}
