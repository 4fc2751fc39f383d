package module

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
	// maxImports bounds the imports running at once in all; past it an
	// import answers 503.
	maxImports = 4
	// maxImportsPerIdentity bounds the imports one identity runs at
	// once; past it the identity's import answers 429.
	maxImportsPerIdentity = 2
	// importRetryAfter is the Retry-After, in seconds, of an import
	// refused by the bounds.
	importRetryAfter = 5
)

// importGate counts the imports running, in all and by identity. The
// process has one, which every zone_api handler of every config
// generation shares (importsPool, shared.go).
type importGate struct {
	total, perIdentity int

	mu      sync.Mutex
	running int
	by      map[string]int
}

// newImportGate returns a gate of total imports at once, perIdentity of
// them for one identity.
func newImportGate(total, perIdentity int) *importGate {
	return &importGate{total: total, perIdentity: perIdentity, by: map[string]int{}}
}

// Destruct does nothing: the gate holds no resource (caddy.Destructor,
// for importsPool).
func (g *importGate) Destruct() error { return nil }

// importsBusy is an import refused by the gate: over the identity's
// bound (429) or over the bound in all (503).
type importsBusy struct {
	perIdentity bool
	limit       int
}

// Error says which bound the import is over.
func (e *importsBusy) Error() string {
	if e.perIdentity {
		return fmt.Sprintf("this identity runs %d imports already, the most it may run at once; retry when one has finished", e.limit)
	}
	return fmt.Sprintf("the server runs %d imports already, the most it runs at once; retry shortly", e.limit)
}

// failure is the answer to the refused import: 429 or 503, with
// Retry-After.
func (e *importsBusy) failure() failure {
	status := http.StatusServiceUnavailable
	if e.perIdentity {
		status = http.StatusTooManyRequests
	}
	f := fail(status, "%s", e.Error())
	f.RetryAfter = importRetryAfter
	return f
}

// enter counts an import of identity in, or refuses it with an
// *importsBusy when it would pass a bound; release counts it out.
func (g *importGate) enter(identity string) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.by[identity] >= g.perIdentity:
		metrics.imports.WithLabelValues("refused").Inc()
		return nil, &importsBusy{perIdentity: true, limit: g.perIdentity}
	case g.running >= g.total:
		metrics.imports.WithLabelValues("refused").Inc()
		return nil, &importsBusy{limit: g.total}
	}
	g.running++
	g.by[identity]++
	metrics.imports.WithLabelValues("running").Inc()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.running--
			metrics.imports.WithLabelValues("running").Dec()
			if g.by[identity]--; g.by[identity] == 0 {
				delete(g.by, identity)
			}
		})
	}, nil
}
