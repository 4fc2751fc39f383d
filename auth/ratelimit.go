package auth

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"golang.org/x/time/rate"
)

// RateLimit is a token bucket: Requests per Interval on average, with
// bursts of up to Burst.
type RateLimit struct {
	// Requests is the number of requests allowed per Interval.
	Requests int `json:"requests,omitempty"`
	// Interval is the period Requests are counted over. Default: 1s.
	Interval caddy.Duration `json:"interval,omitempty"`
	// Burst is the largest number of requests allowed at once. Default:
	// Requests.
	Burst int `json:"burst,omitempty"`
}

// Validate checks the limit.
func (l *RateLimit) Validate() error {
	if l.Requests <= 0 {
		return fmt.Errorf("requests must be positive")
	}
	if l.Interval < 0 || l.Burst < 0 {
		return fmt.Errorf("interval and burst must not be negative")
	}
	return nil
}

func (l *RateLimit) limit() (rate.Limit, int) {
	iv := time.Duration(l.Interval)
	if iv <= 0 {
		iv = time.Second
	}
	burst := l.Burst
	if burst <= 0 {
		burst = l.Requests
	}
	return rate.Limit(float64(l.Requests) / iv.Seconds()), burst
}

// limiters holds every token bucket of the process, keyed by the limit's
// kind, rate, burst and subject, so their state outlives config reloads
// (a reload that keeps a limit keeps its buckets).
var limiters = struct {
	sync.Mutex
	m map[string]*rate.Limiter
}{m: map[string]*rate.Limiter{}}

// maxLimiters bounds the bucket map; past it, full buckets (subjects
// that have been quiet long enough to have their whole burst back) are
// dropped, which loses nothing.
const maxLimiters = 10000

// bucket returns the process-wide bucket of subject under the limit.
func (l *RateLimit) bucket(kind, subject string) *rate.Limiter {
	r, b := l.limit()
	key := fmt.Sprintf("%s\x00%g\x00%d\x00%s", kind, float64(r), b, subject)
	limiters.Lock()
	defer limiters.Unlock()
	lim := limiters.m[key]
	if lim == nil {
		if len(limiters.m) >= maxLimiters {
			now := clock()
			for k, v := range limiters.m {
				if v.TokensAt(now) >= float64(v.Burst()) {
					delete(limiters.m, k)
				}
			}
			// Still full (many subjects at once, e.g. a spray of
			// addresses): start afresh rather than scan on every miss.
			if len(limiters.m) >= maxLimiters {
				clear(limiters.m)
			}
		}
		lim = rate.NewLimiter(r, b)
		limiters.m[key] = lim
	}
	return lim
}

// take spends one request of subject's bucket. It returns 0 when the
// request may go ahead, else how long until it could.
func (l *RateLimit) take(kind, subject string) time.Duration {
	now := clock()
	res := l.bucket(kind, subject).ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

// clock is the limiters' time source (tests replace it).
var clock = time.Now

// blocked reports, without spending anything, how long until subject's
// bucket holds a whole token again (0: not blocked).
func (l *RateLimit) blocked(kind, subject string) time.Duration {
	lim := l.bucket(kind, subject)
	tokens := lim.TokensAt(clock())
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / float64(lim.Limit()) * float64(time.Second))
}

// retryAfter renders a delay as whole seconds for Retry-After (at least 1).
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
