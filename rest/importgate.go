package rest

import (
	"fmt"
	"net/http"
	"sync"
)

// Bounds of the imports (zone files, transfers, copies) that run at once
// in this Caddy process, over every zone_api handler and configuration
// generation: each holds the file it read (up to 64 MiB), the records
// parsed from it and a named-checkzone process (docs/import.md).
const (
	// MaxImports bounds the imports running at once in all; past it an
	// import answers 503.
	MaxImports = 4
	// MaxImportsPerIdentity bounds the imports one identity runs at
	// once; past it the identity's import answers 429.
	MaxImportsPerIdentity = 2
	// importRetryAfter is the Retry-After, in seconds, of an import
	// refused by the bounds.
	importRetryAfter = 5
)

// ImportGate counts the imports running, in all and by identity. The
// host holds one for the process (the bounds are the process's).
type ImportGate struct {
	total, perIdentity int
	// observe is told of each import counted in (running +1), out
	// (running -1) and refused (refused +1), for the host's metric.
	observe func(state string, delta float64)

	mu      sync.Mutex
	running int
	by      map[string]int
}

// NewImportGate returns a gate of total imports at once, perIdentity of
// them for one identity, telling observe (nil: nothing) of each import
// counted in, out or refused.
func NewImportGate(total, perIdentity int, observe func(state string, delta float64)) *ImportGate {
	if observe == nil {
		observe = func(string, float64) {}
	}
	return &ImportGate{total: total, perIdentity: perIdentity, by: map[string]int{}, observe: observe}
}

// Destruct does nothing: the gate holds no resource (caddy.Destructor,
// for the host's pool).
func (g *ImportGate) Destruct() error { return nil }

// ImportsBusy is an import refused by the gate: over the identity's
// bound (429) or over the bound in all (503).
type ImportsBusy struct {
	perIdentity bool
	limit       int
}

// Error says which bound the import is over.
func (e *ImportsBusy) Error() string {
	if e.perIdentity {
		return fmt.Sprintf("this identity runs %d imports already, the most it may run at once; retry when one has finished", e.limit)
	}
	return fmt.Sprintf("the server runs %d imports already, the most it runs at once; retry shortly", e.limit)
}

// failure is the answer to the refused import: 429 or 503, with
// Retry-After.
func (e *ImportsBusy) failure() Failure {
	status := http.StatusServiceUnavailable
	if e.perIdentity {
		status = http.StatusTooManyRequests
	}
	f := fail(status, "%s", e.Error())
	f.RetryAfter = importRetryAfter
	return f
}

// Enter counts an import of identity in, or refuses it with an
// *importsBusy when it would pass a bound; release counts it out.
func (g *ImportGate) Enter(identity string) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.by[identity] >= g.perIdentity:
		g.observe("refused", 1)
		return nil, &ImportsBusy{perIdentity: true, limit: g.perIdentity}
	case g.running >= g.total:
		g.observe("refused", 1)
		return nil, &ImportsBusy{limit: g.total}
	}
	g.running++
	g.by[identity]++
	g.observe("running", 1)
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.running--
			g.observe("running", -1)
			if g.by[identity]--; g.by[identity] == 0 {
				delete(g.by, identity)
			}
		})
	}, nil
}
