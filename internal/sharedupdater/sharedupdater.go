// Package sharedupdater keeps the DNS updaters (package dnsupdate) that
// Caddy handlers share across config generations in a caddy.UsagePool, as
// Caddy's reverse proxy keeps its hosts: a handler takes a reference in
// Provision (nothing is opened there; the updater is made on first use)
// and releases it in Cleanup, and the last release closes the updater's
// connections. Caddy provisions a new config before it cleans up the old
// one, so a reload that keeps the settings hands the same updater
// (connections, zone snapshots, per-zone writers) over, and one that
// changes them closes the old one. The zone_api and zone_api_external_dns
// handlers both use it.
package sharedupdater

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
)

// pool maps a pool key (see Key) to its *Updater.
var pool = caddy.NewUsagePool()

// Key is the pool key of an updater as configured: the owner (a module
// name, so that handlers of different modules never share hooks), the
// server, the timeout and the key configuration, whose secret is hashed,
// never kept.
func Key(owner, server string, keyConfig any, timeout time.Duration) string {
	b, _ := json.Marshal(keyConfig)
	sum := sha256.Sum256(b)
	return owner + "\x00" + server + "\x00" + strconv.FormatInt(int64(timeout), 10) + "\x00" + hex.EncodeToString(sum[:])
}

// Acquire takes a reference to the updater of key; hooks are installed on
// the DNS clients it makes. Release gives the reference back.
func Acquire(key string, hooks dnsupdate.Hooks) *Updater {
	v, _, _ := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		return &Updater{hooks: hooks}, nil
	})
	return v.(*Updater)
}

// Release gives back a reference Acquire took.
func Release(key string) { _, _ = pool.Delete(key) }

// References reports how many references to key's updater are held.
func References(key string) int {
	n, _ := pool.References(key)
	return n
}

// New returns an updater outside the pool (for a handler built without
// Provision, in a test); the zero value is one without hooks.
func New(hooks dnsupdate.Hooks) *Updater { return &Updater{hooks: hooks} }

// Updater is one pooled updater.
type Updater struct {
	hooks dnsupdate.Hooks

	mu sync.Mutex
	id string // server, key and timeout u was made for
	u  *dnsupdate.Updater
}

// Get returns the updater of server and key (nil key: reads only),
// making it on first use. The key is resolved by the caller at run time,
// so when it changes (a key file rewritten, then a forced reload) the
// updater is replaced and the old one closed.
func (s *Updater) Get(server string, key *rndc.Key, timeout time.Duration) (*dnsupdate.Updater, error) {
	return s.get(server, key, timeout, false)
}

// GetForView is Get for the updater of a view of named matched by its
// TSIG key: its queries are signed with the key too
// (dnsupdate.Client.SetSignQueries), so that every message it sends is
// answered by that view.
func (s *Updater) GetForView(server string, key *rndc.Key, timeout time.Duration) (*dnsupdate.Updater, error) {
	return s.get(server, key, timeout, true)
}

func (s *Updater) get(server string, key *rndc.Key, timeout time.Duration, signQueries bool) (*dnsupdate.Updater, error) {
	id := server + "\x00" + strconv.FormatInt(int64(timeout), 10) + "\x00" + strconv.FormatBool(signQueries)
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
	c.SetHooks(s.hooks)
	c.SetSignQueries(signQueries)
	if s.u != nil {
		s.u.Close()
	}
	s.id, s.u = id, dnsupdate.NewUpdater(c)
	return s.u, nil
}

// Destruct closes the updater's connections; no handler uses it any more.
func (s *Updater) Destruct() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.u != nil {
		s.u.Close()
	}
	return nil
}
