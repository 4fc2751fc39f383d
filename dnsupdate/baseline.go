package dnsupdate

import (
	"bytes"
	"strings"

	"github.com/miekg/dns"
)

// A zone's content at a serial, for the difference of a change named
// tells only by sending the whole zone (an IXFR answered like an AXFR: the
// zone has no journal reaching back, or its changes outweigh it, see
// named's max-ixfr-ratio): Cached returns the updater's last read of the
// zone, or else its seed, the master file this process wrote when it
// created the zone (Seed), read back. A seed is not a read of named:
// record reads never use it. It is kept until the zone's content at
// another serial is known (a read, or Transferred), the zone is
// forgotten (Forget), or Cached is asked for a later serial (the zone
// moved on, and the seed can serve no difference any more).
//
// Memory: a seed is kept only for a file of at most seedZoneMax bytes (a
// created zone's file is its SOA, name servers and their addresses: a few
// hundred bytes), and while all seeds hold at most seedTotalMax.

// seedZoneMax bounds the file a zone's seed keeps.
const seedZoneMax = 256 << 10

// seedTotalMax bounds the bytes of all seeds of an Updater.
const seedTotalMax = 32 << 20

// seed is a master file this process wrote for a zone at serial.
type seed struct {
	serial uint32
	data   []byte
}

// Seed keeps data, the master file of zone at serial as this process
// wrote it for named to load (a zone it created), as the zone's content
// at serial for Cached (see above). It reports whether the seed is kept
// (not when larger than the bounds allow).
func (u *Updater) Seed(zone string, serial uint32, data []byte) bool {
	c := &u.cache
	e := c.entry(zone)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.tidy(e)
	e.refs--
	c.dropSeed(e)
	if len(data) > seedZoneMax || c.seedBytes+len(data) > seedTotalMax {
		return false
	}
	e.seed = &seed{serial: serial, data: bytes.Clone(data)}
	c.seedBytes += len(data)
	return true
}

// Transferred takes rrs, the whole content of zone as named sent it (an
// IXFR named answered with the whole zone: its SOA first, not repeated at
// the end), as a read of the zone: Cached and Snapshot return it while
// the zone is at its serial. Nothing is taken without the SOA first, nor
// a zone of more than knownBaseMax records (no read asked for it, so it
// is not kept).
func (u *Updater) Transferred(zone string, rrs []dns.RR) {
	if len(rrs) == 0 || len(rrs) > knownBaseMax {
		return
	}
	if _, ok := rrs[0].(*dns.SOA); !ok {
		return
	}
	s := newSnapshot(zone, rrs)
	e := u.cache.entry(zone)
	defer u.cache.release(e)
	u.cache.mu.Lock()
	e.pinned = true // the base of the zone's next such difference
	u.cache.mu.Unlock()
	u.cacheSet(e, s)
}

// Cached returns the zone's content at serial when the updater knows it:
// its last read of the zone (record lists, batches, exports, Transferred),
// else the zone's seed; nil otherwise. It reads nothing from named.
func (u *Updater) Cached(zone string, serial uint32) *Snapshot {
	c := &u.cache
	e := c.entry(zone)
	defer c.release(e)
	if s := c.get(e); s != nil && s.Serial() == serial {
		return s
	}
	c.mu.Lock()
	sd := e.seed
	if sd != nil && serialLess(sd.serial, serial) {
		c.dropSeed(e)
	}
	c.mu.Unlock()
	if sd == nil || sd.serial != serial {
		return nil
	}
	rrs := parseSeed(zone, sd.data)
	if len(rrs) == 0 {
		return nil
	}
	if s := newSnapshot(zone, rrs); s.SOA != nil && s.Serial() == serial {
		return s
	}
	return nil
}

// parseSeed reads a seed's master file as named loads it: every record of
// an RRset takes the TTL of its first (named keeps one TTL per RRset),
// the SOA first. It returns nil when the file does not parse.
func parseSeed(zone string, data []byte) []dns.RR {
	zp := dns.NewZoneParser(bytes.NewReader(data), dns.Fqdn(zone), "")
	var rrs []dns.RR
	ttls := map[setKey]uint32{}
	soa := -1
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		h := rr.Header()
		k := setKey{strings.ToLower(h.Name), h.Rrtype}
		if ttl, seen := ttls[k]; seen {
			h.Ttl = ttl
		} else {
			ttls[k] = h.Ttl
		}
		if h.Rrtype == dns.TypeSOA && soa < 0 {
			soa = len(rrs)
		}
		rrs = append(rrs, rr)
	}
	if zp.Err() != nil || soa < 0 {
		return nil
	}
	rrs[0], rrs[soa] = rrs[soa], rrs[0]
	return rrs
}

// dropSeed forgets e's seed. Called with c.mu held.
func (c *snapshotCache) dropSeed(e *zoneSnap) {
	if e.seed != nil {
		c.seedBytes -= len(e.seed.data)
		e.seed = nil
	}
}
