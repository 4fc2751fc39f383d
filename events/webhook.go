package events

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Defaults of a webhook's delivery settings.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultRetryMin  = time.Second
	DefaultRetryMax  = 5 * time.Minute
	DefaultDeadAfter = 24 * time.Hour
)

// Webhook is one receiver of the events, as configured.
type Webhook struct {
	// URL receives a POST per event (http or https).
	URL string
	// Name identifies the webhook in the API, the metrics and its state
	// file; default "wh-" and 8 hex digits of the URL's SHA-256.
	Name string
	// Secret signs the deliveries: whsec_ and the base64 of 24 to 64
	// bytes.
	Secret string
	// Types, if not empty, are the event types delivered (zonemodel.ChangeTypes).
	Types []string
	// Zones, if not empty, are the zones whose events are delivered:
	// names, or *.suffix for the zones under a domain.
	Zones []string
	// Timeout bounds one delivery attempt. Default 10s.
	Timeout time.Duration
	// RetryMin and RetryMax bound the backoff between attempts, which
	// doubles from RetryMin up to RetryMax. Defaults 1s and 5m.
	RetryMin, RetryMax time.Duration
	// DeadAfter is how long an event is retried before it becomes a dead
	// letter. Default 24h.
	DeadAfter time.Duration
}

// namePattern is what a webhook's name may be: it appears in a URL path
// and in a file name.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// Check fills in the defaults and checks the webhook; it touches neither
// the disk nor the network.
func (w *Webhook) Check() error {
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook %q: want an http or https URL", w.URL)
	}
	if w.Name == "" {
		sum := sha256.Sum256([]byte(w.URL))
		w.Name = "wh-" + hex.EncodeToString(sum[:4])
	}
	if !namePattern.MatchString(w.Name) || w.Name == "." || w.Name == ".." {
		return fmt.Errorf("webhook %s: name %q: want letters, digits, '.', '_' or '-' (at most 63)", w.URL, w.Name)
	}
	if _, err := NewSigner(w.Secret); err != nil {
		return fmt.Errorf("webhook %s: secret: %v", w.Name, err)
	}
	for _, t := range w.Types {
		if !slices.Contains(zonemodel.ChangeTypes, t) {
			return fmt.Errorf("webhook %s: unknown event type %q; want one of %s", w.Name, t, strings.Join(zonemodel.ChangeTypes, ", "))
		}
	}
	for i, z := range w.Zones {
		z = strings.ToLower(strings.TrimSuffix(z, "."))
		if z == "" || z == "*" || strings.Contains(z[1:], "*") || strings.HasPrefix(z, "*") && !strings.HasPrefix(z, "*.") {
			return fmt.Errorf("webhook %s: zone %q: want a zone name or *.<domain>", w.Name, w.Zones[i])
		}
		w.Zones[i] = z
	}
	if w.Timeout <= 0 {
		w.Timeout = DefaultTimeout
	}
	if w.RetryMin <= 0 {
		w.RetryMin = DefaultRetryMin
	}
	if w.RetryMax <= 0 {
		w.RetryMax = DefaultRetryMax
	}
	if w.RetryMax < w.RetryMin {
		return fmt.Errorf("webhook %s: retry_max %s is below retry_min %s", w.Name, w.RetryMax, w.RetryMin)
	}
	if w.DeadAfter <= 0 {
		w.DeadAfter = DefaultDeadAfter
	}
	return nil
}

// Selects reports whether the webhook delivers the entry.
func (w *Webhook) Selects(e zonemodel.ChangeEntry) bool {
	if len(w.Types) > 0 && !slices.Contains(w.Types, e.Type) {
		return false
	}
	if len(w.Zones) == 0 {
		return true
	}
	z := strings.ToLower(strings.TrimSuffix(e.Zone, "."))
	for _, p := range w.Zones {
		if p == z || strings.HasPrefix(p, "*.") && strings.HasSuffix(z, p[1:]) {
			return true
		}
	}
	return false
}

// fingerprint identifies the webhook's whole configuration: a reload that
// keeps it keeps the running deliverer.
func (w *Webhook) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q %q %q %d %d %d %d", w.URL, w.Name, w.Secret, w.Types, w.Zones, w.Timeout, w.RetryMin, w.RetryMax, w.DeadAfter)
	return hex.EncodeToString(h.Sum(nil))
}
