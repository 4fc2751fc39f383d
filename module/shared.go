package module

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// State shared across config generations lives in two caddy.UsagePools, as
// Caddy's reverse proxy keeps its upstream hosts: a handler takes its
// references in Provision (which touches neither the disk nor BIND: the
// pooled values open lazily) and releases them in Cleanup. Caddy provisions
// the new config before it cleans up the old one, so a reload that keeps
// zone_dir, dns_server and the update key hands the same store and
// updater (locks, index view, connections, snapshots) over; a reload that
// changes them releases the old ones, closing their connections.
var (
	// storePool maps a zone directory to its *sharedStore.
	storePool = caddy.NewUsagePool()
	// updaterPool maps a DNS identity (dns_server, update key as
	// configured, timeout) to its *sharedUpdater.
	updaterPool = caddy.NewUsagePool()
)

// sharedStore is the zone store of one directory, opened on first use.
type sharedStore struct {
	dir string

	mu    sync.Mutex
	store *zonestore.Store
}

// open returns the store, opening it on first use. A failure is not
// remembered: the next call tries again.
func (s *sharedStore) open() (*zonestore.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		st, err := zonestore.Open(s.dir)
		if err != nil {
			return nil, err
		}
		s.store = st
	}
	return s.store, nil
}

// Destruct closes the store's index log; no handler uses the directory
// any more.
func (s *sharedStore) Destruct() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

// sharedUpdater is the updater of one DNS identity as configured. The key
// is resolved on first use (Provision reads no key file); when the
// resolved key changes (a key file rewritten, then a forced reload), the
// updater is replaced.
type sharedUpdater struct {
	mu sync.Mutex
	id string // server, key and timeout u was made for
	u  *dnsupdate.Updater
}

// get returns the updater of server and key (nil key: reads only).
func (s *sharedUpdater) get(server string, key *rndc.Key, timeout time.Duration) (*dnsupdate.Updater, error) {
	id := server + "\x00" + strconv.FormatInt(int64(timeout), 10)
	var tsig *dnsupdate.TSIGKey
	if key != nil {
		sum := sha256.Sum256(key.Secret)
		id += "\x00" + key.Name + "\x00" + string(key.Algorithm) + "\x00" + hex.EncodeToString(sum[:])
		tsig = &dnsupdate.TSIGKey{Name: key.Name, Algorithm: string(key.Algorithm), Secret: key.SecretBase64()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.u != nil && s.id == id {
		return s.u, nil
	}
	c, err := dnsupdate.NewClient(server, tsig, timeout)
	if err != nil {
		return nil, fmt.Errorf("dns_server: %w", err)
	}
	c.SetHooks(dnsupdate.Hooks{Message: traceDNS, Update: countDNSUpdate})
	if s.u != nil {
		s.u.Close()
	}
	s.id, s.u = id, dnsupdate.NewUpdater(c)
	return s.u, nil
}

// Destruct closes the updater's connections; no handler uses it any more.
func (s *sharedUpdater) Destruct() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.u != nil {
		s.u.Close()
	}
	return nil
}

// updaterPoolKey is the pool key of a handler's DNS identity as
// configured: the secret is hashed, never kept in the key.
func updaterPoolKey(server string, key *KeyConfig, timeout time.Duration) string {
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return server + "\x00" + strconv.FormatInt(int64(timeout), 10) + "\x00" + hex.EncodeToString(sum[:])
}

// acquireShared takes the handler's references to the shared store and
// updater; releaseShared gives back those it took. Neither touches the
// disk or the network.
func (h *Handler) acquireShared() error {
	if h.zoneDir != "" {
		v, _, err := storePool.LoadOrNew(h.zoneDir, func() (caddy.Destructor, error) {
			return &sharedStore{dir: h.zoneDir}, nil
		})
		if err != nil {
			return err
		}
		h.store, h.storeKey = v.(*sharedStore), h.zoneDir
	}
	key := updaterPoolKey(h.dnsServer, h.updateKeyConf, h.rndcTimeout)
	v, _, err := updaterPool.LoadOrNew(key, func() (caddy.Destructor, error) {
		return new(sharedUpdater), nil
	})
	if err != nil {
		return err
	}
	h.updater, h.updaterKey = v.(*sharedUpdater), key
	return nil
}

func (h *Handler) releaseShared() {
	if h.storeKey != "" {
		_, _ = storePool.Delete(h.storeKey)
		h.storeKey = ""
	}
	if h.updaterKey != "" {
		_, _ = updaterPool.Delete(h.updaterKey)
		h.updaterKey = ""
	}
}
