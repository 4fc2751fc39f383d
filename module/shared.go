package module

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// State shared across config generations lives in caddy.UsagePools, as
// Caddy's reverse proxy keeps its upstream hosts: a handler takes its
// references in Provision (which touches neither the disk nor BIND: the
// pooled values open lazily) and releases them in Cleanup. Caddy provisions
// the new config before it cleans up the old one, so a reload that keeps
// zone_dir, dns_server and the update key hands the same store and
// updater (locks, index view, connections, snapshots) over; a reload that
// changes them releases the old ones, closing their connections.
// The DNS updaters' pool is package internal/sharedupdater, shared with
// the external-dns handler.
var (
	// storePool maps a zone directory to its *zoneservice.Directory:
	// its store, and the state the process keeps per directory (the
	// start-up reconcile's gate, named's boot time, the Idempotency-Keys
	// in flight).
	storePool = caddy.NewUsagePool()
	// historyPool maps a history directory to its *sharedhistory.Generations.
	historyPool = caddy.NewUsagePool()
	// importsPool holds the process's one *rest.ImportGate (key importsKey):
	// the bounds of the imports running at once are the process's, over
	// every handler and config generation.
	importsPool = caddy.NewUsagePool()
	// checkzonePool holds the process's one *zonecheck.Procs (key
	// checkzoneKey): the bound of the named-checkzone processes running
	// at once is the process's, over every handler and config generation.
	checkzonePool = caddy.NewUsagePool()
)

// checkzoneKey is the key of the named-checkzone bound in checkzonePool.
const checkzoneKey = "named-checkzone"

// acquireCheckzone takes a reference to the process's bound of
// named-checkzone processes; releaseCheckzone gives it back.
func acquireCheckzone() *zonecheck.Procs {
	v, _, _ := checkzonePool.LoadOrNew(checkzoneKey, func() (caddy.Destructor, error) {
		return zonecheck.NewProcs(), nil
	})
	return v.(*zonecheck.Procs)
}

func releaseCheckzone() { _, _ = checkzonePool.Delete(checkzoneKey) }

// importsKey is the key of the import gate in importsPool.
const importsKey = "imports"

// acquireImports takes a reference to the process's import gate;
// releaseImports gives it back.
func acquireImports() *rest.ImportGate {
	v, _, _ := importsPool.LoadOrNew(importsKey, func() (caddy.Destructor, error) {
		return newImportGate(), nil
	})
	return v.(*rest.ImportGate)
}

func releaseImports() { _, _ = importsPool.Delete(importsKey) }

// generation counts the holders of a config generation's shared state
// (store, updater, history, control connections): Provision's own
// reference, which Cleanup gives back, and one per request being served.
// Caddy cleans the old generation up while its requests are still in
// flight (its servers' graceful shutdown runs on after the reload), so the
// state is given back (done) only when the last of them has finished: a
// reload never fails a request nor loses its history entry.
type generation struct {
	refs atomic.Int64
	once sync.Once
	done func()
}

// newGeneration returns a generation held by its Provision.
func newGeneration(done func()) *generation {
	g := &generation{done: done}
	g.refs.Store(1)
	return g
}

// enter takes a reference for a request.
func (g *generation) enter() { g.refs.Add(1) }

// leave gives back a reference; the last one runs done, once.
func (g *generation) leave() {
	if g.refs.Add(-1) == 0 {
		g.once.Do(g.done)
	}
}

// sharedRefs are a handler's references to the shared store and updater:
// nil until Provision takes them (acquire) and after Cleanup gives them
// back (release). storeKey and updaterKey are their pool keys, set while
// the references are held.
type sharedRefs struct {
	store      *zoneservice.Directory
	updater    *sharedupdater.Updater
	history    *sharedhistory.Generations
	storeKey   string
	updaterKey string
	historyKey string
}

// acquireHistory takes the reference to the change history of zoneDir
// (touching nothing: the Log opens at the first getBackend).
func (s *sharedRefs) acquireHistory(zoneDir string) error {
	dir := historyDir(zoneDir)
	v, _, err := historyPool.LoadOrNew(dir, func() (caddy.Destructor, error) {
		return sharedhistory.NewGenerations(dir), nil
	})
	if err != nil {
		return err
	}
	s.history, s.historyKey = v.(*sharedhistory.Generations), dir
	return nil
}

// acquire takes the references to the store of zoneDir and the updater of
// server, key and timeout; release gives back those it took. Neither
// touches the disk or the network.
func (s *sharedRefs) acquire(zoneDir, server string, key *config.KeyConfig, timeout time.Duration) error {
	return s.acquireView(zoneDir, "", server, key, timeout)
}

// acquireView is acquire for the zones of a view (views.go): the store of
// zonestore.ViewDir(zoneDir, view), and an updater of the view's own (its
// messages are all signed; see sharedupdater.GetForView). View "" is
// acquire's.
func (s *sharedRefs) acquireView(zoneDir, view, server string, key *config.KeyConfig, timeout time.Duration) error {
	if zoneDir != "" {
		dir, open := zoneDir, (func() (*zonestore.Store, error))(nil)
		if view != "" {
			dir = zonestore.ViewDir(zoneDir, view)
			open = func() (*zonestore.Store, error) { return zonestore.OpenView(zoneDir, view) }
		}
		v, _, err := storePool.LoadOrNew(dir, func() (caddy.Destructor, error) {
			return zoneservice.NewDirectory(dir, open), nil
		})
		if err != nil {
			return err
		}
		s.store, s.storeKey = v.(*zoneservice.Directory), dir
	}
	if view != "" {
		server += "\x00view"
	}
	s.updaterKey = updaterPoolKey(server, key, timeout)
	s.updater = sharedupdater.Acquire(s.updaterKey, reqlog.DNSHooks())
	return nil
}

// updaterPoolKey is the pool key of the zone_api handler's updater.
func updaterPoolKey(server string, key *config.KeyConfig, timeout time.Duration) string {
	return sharedupdater.Key("zone_api", server, key, timeout)
}

func (s *sharedRefs) release() {
	if s.storeKey != "" {
		_, _ = storePool.Delete(s.storeKey)
		s.storeKey = ""
	}
	if s.updaterKey != "" {
		sharedupdater.Release(s.updaterKey)
		s.updaterKey = ""
	}
	if s.historyKey != "" {
		_, _ = historyPool.Delete(s.historyKey)
		s.historyKey = ""
	}
}
