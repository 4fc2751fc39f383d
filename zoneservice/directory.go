package zoneservice

import (
	"sync"

	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// Directory is what the process keeps of one zone directory (a view's
// too) across the services that work on it: its store, opened on first
// use, and the state that must be one per directory and process whichever
// config generation's service asks: the start-up reconcile's gate
// (ReconcileAtStart), named's boot time as the restart watch last saw it
// (WatchRestarts), and the Idempotency-Keys whose request is running
// (BeginKey). A front end that outlives config generations (the Caddy
// module) holds it in a caddy.UsagePool keyed by the directory (Destruct
// closes the store), and gives it to every Service of the directory
// (Service.Directory).
type Directory struct {
	dir  string
	open func() (*zonestore.Store, error)

	mu    sync.Mutex
	store *zonestore.Store

	// startup is the gate of the start-up reconcile.
	startup retryGate

	// bootMu guards boot and booted: named's boot time as the restart
	// watch last saw it, and whether it saw one.
	bootMu sync.Mutex
	boot   string
	booted bool

	// keysMu guards keys, the Idempotency-Keys being answered.
	keysMu sync.Mutex
	keys   map[string]bool

	// zones is the zone cache of the zone GETs (zonecache.go).
	zones zoneCache
}

// NewDirectory returns the Directory of dir, whose store open opens (nil:
// zonestore.Open(dir)) on first use.
func NewDirectory(dir string, open func() (*zonestore.Store, error)) *Directory {
	if open == nil {
		open = func() (*zonestore.Store, error) { return zonestore.Open(dir) }
	}
	return &Directory{dir: dir, open: open}
}

// Dir is the directory's path.
func (d *Directory) Dir() string { return d.dir }

// Store returns the directory's store, opening it on first use. A
// failure is not remembered: the next call tries again.
func (d *Directory) Store() (*zonestore.Store, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.store == nil {
		st, err := d.open()
		if err != nil {
			return nil, err
		}
		d.store = st
	}
	return d.store, nil
}

// Destruct closes the store's index log: no service uses the directory
// any more (caddy.Destructor).
func (d *Directory) Destruct() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.store == nil {
		return nil
	}
	return d.store.Close()
}

// sawBoot records named's boot time bootTime as seen now and returns the
// one seen before, and whether one was.
func (d *Directory) sawBoot(bootTime string) (last string, seen bool) {
	d.bootMu.Lock()
	defer d.bootMu.Unlock()
	last, seen = d.boot, d.booted
	d.boot, d.booted = bootTime, true
	return last, seen
}

// BeginKey marks the Idempotency-Key id (its hash, as the key store
// names it) as being answered in this directory and returns the function
// that ends it; ok is false, and nothing marked, when a request with the
// key is being answered already (the draft's 409).
func (d *Directory) BeginKey(id string) (end func(), ok bool) {
	d.keysMu.Lock()
	defer d.keysMu.Unlock()
	if d.keys[id] {
		return nil, false
	}
	if d.keys == nil {
		d.keys = map[string]bool{}
	}
	d.keys[id] = true
	return func() {
		d.keysMu.Lock()
		defer d.keysMu.Unlock()
		delete(d.keys, id)
	}, true
}
