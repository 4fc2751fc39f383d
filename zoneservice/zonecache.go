package zoneservice

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// The zone cache keeps, per zone, what named's `rndc zonestatus` and
// `rndc showzone` told the last zone GET (CachedZone, CachedStatement),
// so that a zone GET asks named nothing in the steady state: at 100,000
// zones each of those two commands costs named 8–10x what it costs at
// 1,000 (docs/performance.md, "Hosting scale"). It is one per zone
// directory and process (Directory), shared by every Service of the
// directory and kept across config generations. A zone's entry holds the
// parsed fields a zone GET answers (not zonestatus's text) and the
// statement's text: some 300 bytes (zonecache_test.go measures it).
//
// An entry is dropped (the next read asks named again):
//
//   - after every operation of the API on the zone that takes its lock
//     (create, delete, modify, reload, freeze, thaw, adopt, import,
//     repairs), both parts, and for zoneSettle after it nothing is
//     cached for the zone, since named completes some of these (a
//     reload, a thaw's load, an added zone's load) after it answered;
//     the catalog zone's status with them. The lock's release also
//     touches the zone in the index (zonestore's Touch: one line
//     appended, not fsynced), so that the caches of the other processes
//     on the directory do the same at their next read (below);
//   - after every record change through the service (success or not), and
//     after rndc notify, loadkeys and retransfer: its zonestatus part
//     (loadkeys and retransfer also touch the zone, below);
//   - when named sends a NOTIFY for the zone to the history's listener
//     (Notices): its zonestatus part. named sends one whenever a zone's
//     serial moves (also-notify), so a change made behind the API's back
//     that moves the serial (nsupdate, a reload of an edited file, a
//     thaw) is seen as soon as its NOTIFY arrives;
//   - when the index changes, by this process or another on the same
//     directory (zonestore's ChangesSince, read at each cached read: a
//     stat of the log, and its new lines, whatever the number of zones):
//     both parts of the zones it names, and for a touch (another
//     process's operation under the zone's lock) nothing cached for
//     zoneSettle;
//   - when named restarted, and whenever the restart watch cannot reach
//     named (WatchRestarts): every entry, so that a zone GET does not
//     answer a stopped named's zones as loaded.
//
// A change behind the API's back that moves no serial and touches no
// index (an rndc freeze, modzone or delzone by hand), a record change of
// a service without the zone directory (the external-dns webhook's),
// when no NOTIFY tells of it, or any change when the history does not
// listen for NOTIFYs, is seen once the entry is older than the
// service's ZoneCacheMaxAge (default one minute; the zone_api option
// zone_cache_max_age): a read of an older entry asks named again, for
// that one zone. A zone named has not loaded and named's errors are not
// cached. An `rndc delzone` by hand sends no NOTIFY and leaves the index
// as it was: the zone GET answers the deleted zone's cached state (200)
// until the max age. Nothing here catches it sooner: the restart watch
// sees whether named restarted, not which zones it serves (a count of
// them would miss a delzone paired with an addzone), and named sends no
// NOTIFY for a zone it dropped. The next record change, freeze or other
// command on the zone through the API finds it gone and drops the entry;
// zone_cache_max_age bounds the rest (off: every zone GET asks named).

// DefaultZoneCacheMaxAge is how long a zone's cached state answers zone
// GETs before they ask named again (Service.ZoneCacheMaxAge).
const DefaultZoneCacheMaxAge = time.Minute

// zoneSettle is how long after an operation of the API on a zone its
// state is not cached: named loads a zone after a reload, a thaw or an
// addzone has answered.
const zoneSettle = 2 * time.Second

// zoneCache is the cache (see above). The zero value is ready.
type zoneCache struct {
	mu    sync.Mutex
	zones map[string]*cachedZone
	// fills are the reads of named in flight, by zone: an entry dropped
	// meanwhile marks them, and they do not store what they read.
	fills map[string]*cacheFill
	// settle holds, by zone, until when (UnixNano) nothing is cached.
	settle map[string]int64
	// seq is the index change the cache has applied (fed: read once).
	seq uint64
	fed bool
	// swept is the number of entries after the last sweep.
	swept, settleSwept int
}

// cachedZone is one zone's entry: the fields of zonestatus a zone GET
// answers (statusAt 0: none) and showzone's statement as text (stmtAt
// 0: none), each with when it was read (UnixNano).
type cachedZone struct {
	name, typ, file, lastLoaded string
	serial, signedSerial        uint32
	nodes                       int32
	flags                       uint8
	statusAt                    int64

	stmt   string
	stmtAt int64
}

// The flags of cachedZone.
const (
	cHasSerial uint8 = 1 << iota
	cLoaded
	cSecure
	cDynamic
	cFrozen
	cInlineSigning
	cReconfigurable
)

// cacheFill is a read of named in flight for one zone (n readers);
// status and stmt are set when the part was dropped meanwhile.
type cacheFill struct {
	n            int
	status, stmt bool
}

// intern returns named's usual zone types as constants, so that entries
// share them.
func intern(s string) string {
	switch s {
	case "primary":
		return "primary"
	case "secondary":
		return "secondary"
	case "mirror":
		return "mirror"
	case "stub":
		return "stub"
	}
	return strings.Clone(s)
}

// cacheKey is the key of a zone: lower case, without a final dot.
func cacheKey(name string) string {
	return strings.TrimSuffix(strings.ToLower(name), ".")
}

// setStatus keeps st's fields. A new entry's name is its key, which is
// named's name of the zone but in case.
func (z *cachedZone) setStatus(st *rndc.ZoneStatus, now int64) {
	// Copies: named's fields are parts of its whole text, which they
	// would keep alive.
	if z.name != st.Name {
		z.name = strings.Clone(st.Name)
	}
	z.typ, z.lastLoaded = intern(st.Type), strings.Clone(st.LastLoaded)
	z.file = ""
	if len(st.Files) > 0 {
		z.file = strings.Clone(st.Files[0])
	}
	z.serial, z.signedSerial, z.nodes = st.Serial, st.SignedSerial, int32(st.Nodes)
	z.flags = 0
	for _, f := range []struct {
		on   bool
		flag uint8
	}{{st.HasSerial, cHasSerial}, {st.Loaded, cLoaded}, {st.Secure, cSecure}, {st.Dynamic, cDynamic},
		{st.Frozen, cFrozen}, {st.InlineSigning, cInlineSigning}, {st.Reconfigurable, cReconfigurable}} {
		if f.on {
			z.flags |= f.flag
		}
	}
	z.statusAt = now
}

// status rebuilds the zonestatus of the entry: without Raw and Fields,
// with the first file only.
func (z *cachedZone) status() *rndc.ZoneStatus {
	st := &rndc.ZoneStatus{Name: z.name, Type: z.typ, Serial: z.serial, SignedSerial: z.signedSerial, Nodes: int(z.nodes), LastLoaded: z.lastLoaded,
		HasSerial: z.flags&cHasSerial != 0, Loaded: z.flags&cLoaded != 0, Secure: z.flags&cSecure != 0, Dynamic: z.flags&cDynamic != 0,
		Frozen: z.flags&cFrozen != 0, InlineSigning: z.flags&cInlineSigning != 0, Reconfigurable: z.flags&cReconfigurable != 0}
	if z.file != "" {
		st.Files = []string{z.file}
	}
	return st
}

// begin registers a read of named for the zone.
func (c *zoneCache) begin(key string) *cacheFill {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fills == nil {
		c.fills = map[string]*cacheFill{}
	}
	f := c.fills[key]
	if f == nil {
		f = &cacheFill{}
		c.fills[key] = f
	}
	f.n++
	return f
}

// end ends the read f and stores what it read (st, zc; nil: nothing)
// unless the zone's entry was dropped meanwhile or it settles.
func (c *zoneCache) end(key string, f *cacheFill, st *rndc.ZoneStatus, zc *rndc.ZoneStatement, now int64, maxAge time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.n--; f.n == 0 {
		delete(c.fills, key)
	}
	if until, ok := c.settle[key]; ok {
		if now < until {
			return
		}
		delete(c.settle, key)
	}
	if (st == nil || f.status) && (zc == nil || f.stmt) {
		return
	}
	if c.zones == nil {
		c.zones = map[string]*cachedZone{}
	}
	z := c.zones[key]
	if z == nil {
		c.sweep(now, maxAge)
		z = &cachedZone{}
		key = strings.Clone(key)
		z.name = key
		c.zones[key] = z
	}
	if st != nil && !f.status {
		z.setStatus(st, now)
	}
	if zc != nil && !f.stmt {
		z.stmt, z.stmtAt = zc.String(), now
	}
}

// sweep drops the entries older than maxAge once the cache has doubled
// since the last sweep: O(1) per entry added. c.mu is held.
func (c *zoneCache) sweep(now int64, maxAge time.Duration) {
	if len(c.zones) < max(2*c.swept, 1024) {
		return
	}
	for k, z := range c.zones {
		if now-max(z.statusAt, z.stmtAt) >= int64(maxAge) {
			delete(c.zones, k)
		}
	}
	c.swept = len(c.zones)
}

// drop drops the zone's zonestatus part (status), its statement (stmt),
// or both, marks the reads in flight, and with settle caches nothing
// for the zone until then (UnixNano).
func (c *zoneCache) drop(key string, status, stmt bool, settle int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(key, status, stmt, settle)
}

func (c *zoneCache) dropLocked(key string, status, stmt bool, settle int64) {
	if z := c.zones[key]; z != nil {
		if status {
			z.statusAt = 0
		}
		if stmt {
			z.stmt, z.stmtAt = "", 0
		}
		if z.statusAt == 0 && z.stmtAt == 0 {
			delete(c.zones, key)
		}
	}
	if f := c.fills[key]; f != nil {
		f.status = f.status || status
		f.stmt = f.stmt || stmt
	}
	if settle != 0 {
		if c.settle == nil {
			c.settle = map[string]int64{}
		}
		if len(c.settle) >= max(2*c.settleSwept, 64) {
			for k, until := range c.settle {
				if until < settle-int64(zoneSettle) {
					delete(c.settle, k)
				}
			}
			c.settleSwept = len(c.settle)
		}
		c.settle[key] = settle
	}
}

// clear drops every entry and marks every read in flight.
func (c *zoneCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.zones = nil
	c.swept = 0
	for _, f := range c.fills {
		f.status, f.stmt = true, true
	}
}

// follow applies the index's changes since the last read (feed: nil
// when the index does not report them): each changed zone's entry is
// dropped; all of them when the changes are not all kept. It returns
// false when the index could not be read (nothing is then answered from
// the cache).
func (c *zoneCache) follow(feed changeFeed, now int64) bool {
	if feed == nil {
		return true
	}
	c.mu.Lock()
	seq := c.seq
	c.mu.Unlock()
	changes, last, ok, err := feed.ChangesSince(seq)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !c.fed:
		// The first read: nothing was cached before it. (A read that
		// began before another's first read ended applies what it
		// read: changes from the start, or, when they are not all
		// kept, a drop of everything; either is safe.)
	case !ok:
		c.zones, c.swept = nil, 0
		for _, f := range c.fills {
			f.status, f.stmt = true, true
		}
	default:
		for _, ch := range changes {
			settle := int64(0)
			if ch.Touched {
				// A lock released (Service.lock), maybe by another
				// process: named may complete the operation later.
				settle = now + int64(zoneSettle)
			}
			c.dropLocked(cacheKey(ch.Entry.Name), true, true, settle)
		}
	}
	c.fed = true
	c.seq = max(c.seq, last)
	return true
}

// lookup returns a copy of the zone's entry when it has the parts asked
// for, read less than maxAge before now.
func (c *zoneCache) lookup(key string, status, stmt bool, now int64, maxAge time.Duration) (cachedZone, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	z := c.zones[key]
	if z == nil || status && (z.statusAt == 0 || now-z.statusAt >= int64(maxAge)) || stmt && (z.stmtAt == 0 || now-z.stmtAt >= int64(maxAge)) {
		return cachedZone{}, false
	}
	return *z, true
}

// len is the number of entries (tests).
func (c *zoneCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.zones)
}

// zoneCache returns the service's cache: its Directory's; nil for a
// service without a store (one that only changes records).
func (s *Service) zoneCache() *zoneCache {
	if s.Directory == nil && s.Store == nil {
		return nil
	}
	return &s.directory().zones
}

// cacheMaxAge is ZoneCacheMaxAge or its default; 0 when the cache is off.
func (s *Service) cacheMaxAge() time.Duration {
	switch {
	case s.ZoneCacheMaxAge < 0:
		return 0
	case s.ZoneCacheMaxAge == 0:
		return DefaultZoneCacheMaxAge
	}
	return s.ZoneCacheMaxAge
}

// feed is the service's index as a change feed, nil when it is not one.
func (s *Service) feed() changeFeed {
	f, _ := s.Store.(changeFeed)
	return f
}

// CachedZone is Zone answered from the zone cache when it holds the zone
// (see above); otherwise Zone, whose zonestatus is cached, with the
// zone's statement read at once (CachedStatement) when the cache does
// not hold it either. A cached
// Status has neither Raw nor Fields, only its first file, and Details is
// then "".
func (s *Service) CachedZone(ctx context.Context, name string) (*ZoneState, error) {
	maxAge, c, key := s.cacheMaxAge(), s.zoneCache(), cacheKey(name)
	if maxAge == 0 || c == nil {
		return s.Zone(ctx, name)
	}
	if c.follow(s.feed(), s.now().UnixNano()) {
		if z, ok := c.lookup(key, true, false, s.now().UnixNano(), maxAge); ok {
			entry, managed, err := s.Store.Get(name)
			if err != nil {
				return nil, newErr(ErrStorage, name, "", "reading the zone index", err)
			}
			return &ZoneState{Status: z.status(), Entry: entry, Managed: managed, File: s.Store.FilePath(name)}, nil
		}
	}
	f := c.begin(key)
	// A zone GET reads the statement next (ZoneDetails): when the cache
	// does not hold it either, it is read now, at once, so that a first
	// read costs one round trip to named, not two.
	var stmtRead chan struct{}
	if c.wantsStatement(key, s.now().UnixNano(), maxAge) {
		stmtRead = make(chan struct{})
		go func() {
			defer close(stmtRead)
			s.CachedStatement(ctx, name) // cached for the read that follows; not when it fails
		}()
	}
	zs, err := s.Zone(ctx, name)
	var st *rndc.ZoneStatus
	if err == nil {
		st = zs.Status // nil (not cached) when named has not loaded the zone
	}
	c.end(key, f, st, nil, s.now().UnixNano(), maxAge)
	if stmtRead != nil {
		<-stmtRead
	}
	return zs, err
}

// wantsStatement tells whether a read of the zone's statement now would
// be cached and the cache does not hold one: the zone does not settle and
// its entry has no statement younger than maxAge.
func (c *zoneCache) wantsStatement(key string, now int64, maxAge time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until, ok := c.settle[key]; ok && now < until {
		return false
	}
	z := c.zones[key]
	return z == nil || z.stmtAt == 0 || now-z.stmtAt >= int64(maxAge)
}

// CachedStatement is ZoneStatement answered from the zone cache when it
// holds the zone's statement; otherwise ZoneStatement, whose answer is
// cached.
func (s *Service) CachedStatement(ctx context.Context, name string) (*rndc.ZoneStatement, error) {
	maxAge, c, key := s.cacheMaxAge(), s.zoneCache(), cacheKey(name)
	if maxAge == 0 || c == nil {
		return s.ZoneStatement(ctx, name)
	}
	if c.follow(s.feed(), s.now().UnixNano()) {
		if z, ok := c.lookup(key, false, true, s.now().UnixNano(), maxAge); ok {
			if zc, err := rndc.ParseZoneStatement(z.stmt); err == nil {
				return zc, nil
			}
		}
	}
	f := c.begin(key)
	zc, err := s.ZoneStatement(ctx, name)
	c.end(key, f, nil, zc, s.now().UnixNano(), maxAge)
	return zc, err
}

// toucher is an index that records a zone's touch for the other
// processes on its directory (zonestore's Touch).
type toucher interface {
	Touch(name string) error
}

// zoneChanged drops the zone's entry after an operation of the API on it
// under its lock, and caches nothing of it for zoneSettle; the catalog
// zone's zonestatus part with it. It touches the zone in the index, so
// that the other processes on the directory drop theirs too (follow); a
// touch that fails is logged, and they see the change at the max age.
func (s *Service) zoneChanged(zone string) {
	c := s.zoneCache()
	if c == nil {
		return
	}
	s.touch(zone)
	c.drop(cacheKey(zone), true, true, s.now().Add(zoneSettle).UnixNano())
	if s.Catalog != nil {
		c.drop(cacheKey(s.Catalog.Zone), true, false, 0)
	}
}

// touch touches the zone in the index for the other processes (see
// zoneChanged).
func (s *Service) touch(zone string) {
	if t, ok := s.Store.(toucher); ok {
		if err := t.Touch(zone); err != nil {
			s.log().Warn("the zone cache of other processes on the zone directory will not see the change until its max age",
				zap.String("zone", zone), zap.Error(err))
		}
	}
}

// statusChanged drops the zone's zonestatus part: after a record change,
// or a NOTIFY; with settle (a command whose effect named completes
// later: retransfer, loadkeys) nothing is cached of it for zoneSettle,
// and the zone is touched for the other processes (a record change
// moves the serial: its NOTIFY tells them).
func (s *Service) statusChanged(zone string, settle bool) {
	until := int64(0)
	if settle {
		until = s.now().Add(zoneSettle).UnixNano()
		s.touch(zone)
	}
	if c := s.zoneCache(); c != nil {
		c.drop(cacheKey(zone), true, false, until)
	}
}

// CachedZoneAndStatement is CachedZone then CachedStatement, the zone
// GET's reads: when the cache holds neither, CachedZone has asked named
// both commands at once (the rndc client allows concurrent commands), so
// that a zone's first read costs named's slower command, not the sum of
// both, and CachedStatement answers from the cache. stmtErr is
// CachedStatement's.
func (s *Service) CachedZoneAndStatement(ctx context.Context, name string) (zs *ZoneState, zc *rndc.ZoneStatement, err, stmtErr error) {
	zs, err = s.CachedZone(ctx, name)
	zc, stmtErr = s.CachedStatement(ctx, name)
	return zs, zc, err, stmtErr
}
