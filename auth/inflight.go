package auth

import (
	"fmt"
	"net/http"
	"sync"
)

// MaxExpensiveReads is how many expensive reads (a search, an export, a
// list of every zone named serves: answers that grow with the number of
// zones or records) one identity may have in flight at once; the next
// is refused 429 until one of them finishes. Without identities
// (authentication disabled) it counts per client address, as the rate
// limit does.
const MaxExpensiveReads = 4

// inFlight counts requests in flight per subject, at most max each.
type inFlight struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

// acquire takes one of subject's slots; ok is false when it has max in
// flight already. release gives the slot back (call it once).
func (f *inFlight) acquire(subject string) (release func(), ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[subject] >= f.max {
		return nil, false
	}
	f.n[subject]++
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.n[subject]--; f.n[subject] <= 0 {
				delete(f.n, subject)
			}
		})
	}, true
}

// AcquireExpensiveRead takes one of the expensive-read slots of the
// request's identity (id; nil or the disabled mode's anonymous identity
// count per client address), in the Guard's Limits: those of the process
// (AcquireLimits), so that a config reload, whose old handler still
// serves its requests, neither forgets nor doubles them. When the
// identity has MaxExpensiveReads in flight it returns the 429 to answer
// instead; otherwise the caller must call release when the answer is
// written. A nil Guard (a host built without provisioning, in tests)
// bounds nothing.
func (g *Guard) AcquireExpensiveRead(r *http.Request, id *Identity) (release func(), rej *Rejection) {
	if g == nil {
		return func() {}, nil
	}
	subject := "anonymous@" + failedAuthSubject(ClientIP(r))
	if id != nil && id != anonymous {
		subject = id.ID
	}
	release, ok := g.limits().reads.acquire(subject)
	if !ok {
		return nil, &Rejection{Status: http.StatusTooManyRequests, Reason: "expensive_reads", RetryAfter: 1,
			Message: fmt.Sprintf("%s has %d searches, exports or lists of every zone in flight, the most one identity may have at once; retry after 1 s", subject, MaxExpensiveReads)}
	}
	return release, nil
}
