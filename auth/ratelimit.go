package auth

import (
	"container/list"
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

// maxLimiters bounds the bucket table: about 200 bytes a bucket, so some
// 13 MB at the bound, room for the addresses and identities of a busy
// API (an IPv6 client counts per /64 for failed authentication).
const maxLimiters = 65536

// evictScan is how many of the least recently used buckets eviction
// looks at.
const evictScan = 64

// bucketTable is a bounded map of buckets with least-recently-used
// order. At the bound, a new bucket takes the place of one of the
// evictScan least recently used: the first that has refilled (its
// subject is not limited: dropping it loses nothing), else the one with
// the most tokens left. So a flood of new subjects, each spending a
// token or two, pushes out its own buckets and those of quiet subjects,
// never a bucket that is emptied (an address locked out, an identity at
// its limit) while fuller ones remain; and no new subject is ever
// refused a bucket, so the bound cannot lock anyone out.
type bucketTable struct {
	now func() time.Time // the buckets' time source (tests replace it)

	mu  sync.Mutex
	max int
	m   map[string]*list.Element
	lru list.List // of *bucketEntry, most recently used first
}

type bucketEntry struct {
	key string
	lim *rate.Limiter
}

func newBucketTable(max int) *bucketTable {
	return &bucketTable{now: time.Now, max: max, m: map[string]*list.Element{}}
}

// get returns the bucket of key, made with r and b when new. A bucket
// kept under another rate or burst (a config reload changed the limit)
// is changed in place: it keeps the tokens spent, clipped to the new
// burst (the limiter clips them at its next read).
func (t *bucketTable) get(key string, r rate.Limit, b int) *rate.Limiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.m[key]; ok {
		t.lru.MoveToFront(e)
		lim := e.Value.(*bucketEntry).lim
		if lim.Limit() != r {
			lim.SetLimitAt(t.now(), r)
		}
		if lim.Burst() != b {
			lim.SetBurstAt(t.now(), b)
		}
		return lim
	}
	if len(t.m) >= t.max {
		t.evict(t.now())
	}
	lim := rate.NewLimiter(r, b)
	t.m[key] = t.lru.PushFront(&bucketEntry{key: key, lim: lim})
	return lim
}

// evict drops one bucket (see bucketTable). The caller holds t.mu.
func (t *bucketTable) evict(now time.Time) {
	var victim *list.Element
	most := -1.0
	e := t.lru.Back()
	for i := 0; e != nil && i < evictScan; i, e = i+1, e.Prev() {
		lim := e.Value.(*bucketEntry).lim
		tokens := lim.TokensAt(now)
		if tokens >= float64(lim.Burst()) {
			victim = e
			break
		}
		if share := tokens / float64(lim.Burst()); share > most {
			victim, most = e, share
		}
	}
	if victim != nil {
		delete(t.m, victim.Value.(*bucketEntry).key)
		t.lru.Remove(victim)
	}
}

// bucket returns the bucket of subject under the limit l of the kind
// (identity, failed_auth) named name (Guard.LimitName), of the Guards
// that share these Limits. The key holds neither the rate nor the burst:
// a reload that changes the limit keeps the bucket, and what the subject
// spent (get changes the bucket's rate and burst in place), so that
// lowering a limit against a subject does not hand it a full new
// bucket. Guards with different names keep separate buckets.
func (lims *Limits) bucket(l *RateLimit, kind, name, subject string) *rate.Limiter {
	r, b := l.limit()
	// Built without fmt: this runs twice per request.
	key := kind + "\x00" + name + "\x00" + subject
	return lims.buckets.get(key, r, b)
}

// take spends one request of subject's bucket under l. It returns 0 when
// the request may go ahead, else how long until it could.
func (lims *Limits) take(l *RateLimit, kind, name, subject string) time.Duration {
	now := lims.buckets.now()
	res := lims.bucket(l, kind, name, subject).ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d
	}
	return 0
}

// blocked reports, without spending anything, how long until subject's
// bucket under l holds a whole token again (0: not blocked).
func (lims *Limits) blocked(l *RateLimit, kind, name, subject string) time.Duration {
	lim := lims.bucket(l, kind, name, subject)
	tokens := lim.TokensAt(lims.buckets.now())
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / float64(lim.Limit()) * float64(time.Second))
}

// retryAfter renders a delay as whole seconds for Retry-After (at least 1).
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
