package dnsupdate

import (
	"bytes"
	"strconv"
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
// hundred bytes), and while all seeds hold at most seedTotalMax. A seed is
// kept compactly: its file with the zone's name and its serial taken out
// (seedText), a text that the files of zones created alike share (one
// for 100,000 zones created with the same settings), and per zone the
// serial and that shared text (seedRef), in a map of their own: some 60
// bytes a zone, where the file itself, its copy and a cache entry (as
// before) took some 440 (BenchmarkSeedHeap). A zone without a seed
// (over the bounds, or after a restart) costs its first whole-zone
// difference a read of its file in the zone directory instead (see the
// zone service's fileAt), while that file is still at the serial.

// seedZoneMax bounds the file a zone's seed keeps.
const seedZoneMax = 256 << 10

// seedTotalMax bounds the bytes of all seeds of an Updater: each distinct
// text (seedTextBytes more than its length) and seedRefBytes a zone.
const seedTotalMax = 32 << 20

// What a seed costs beside its text's bytes: per zone (its map slot and
// reference, the zone's name is the caller's) and per distinct text (its
// header and map slot).
const (
	seedRefBytes  = 64
	seedTextBytes = 96
)

// The bytes that stand for the zone's name and its serial in a seed's
// text, when the file holds neither (else the text is the file as is).
const (
	seedNameMark   = "\x00"
	seedSerialMark = "\x01"
)

// seedText is the text of one or more seeds: a master file with the
// zone's name and its serial taken out (or whole, seedRef.raw).
type seedText struct {
	data string
	refs int // seeds sharing it
}

// seedRef is a zone's seed: the zone at serial is its text with the
// marks put back.
type seedRef struct {
	text   *seedText
	serial uint32
	raw    bool // text is the file as is
}

// seedSet holds an Updater's seeds. Guarded by snapshotCache.mu.
type seedSet struct {
	byZone map[string]seedRef
	texts  map[string]*seedText
	bytes  int
}

// seedTemplate takes zone's name and the serial out of data, or reports
// raw (data unchanged) when data holds a mark already.
func seedTemplate(zone string, serial uint32, data []byte) (text []byte, raw bool) {
	if zone == "" || bytes.Contains(data, []byte(seedNameMark)) || bytes.Contains(data, []byte(seedSerialMark)) ||
		strings.Contains(zone, seedSerialMark) {
		return data, true
	}
	t := bytes.ReplaceAll(data, []byte(zone), []byte(seedNameMark))
	return bytes.ReplaceAll(t, strconv.AppendUint(nil, uint64(serial), 10), []byte(seedSerialMark)), false
}

// file returns the master file r stands for, as given to Seed.
func (r seedRef) file(zone string) []byte {
	if r.raw {
		return []byte(r.text.data)
	}
	t := strings.ReplaceAll(r.text.data, seedSerialMark, strconv.FormatUint(uint64(r.serial), 10))
	return []byte(strings.ReplaceAll(t, seedNameMark, zone))
}

// add keeps zone's seed, unless over the bounds.
func (ss *seedSet) add(zone string, serial uint32, data []byte) bool {
	if len(data) > seedZoneMax {
		return false
	}
	text, raw := seedTemplate(zone, serial, data)
	t := ss.texts[string(text)]
	cost := seedRefBytes
	if t == nil {
		cost += seedTextBytes + len(text)
	}
	if ss.bytes+cost > seedTotalMax {
		return false
	}
	if ss.byZone == nil {
		ss.byZone = map[string]seedRef{}
		ss.texts = map[string]*seedText{}
	}
	if t == nil {
		t = &seedText{data: string(text)}
		ss.texts[t.data] = t
	}
	t.refs++
	ss.byZone[zone] = seedRef{text: t, serial: serial, raw: raw}
	ss.bytes += cost
	return true
}

// drop forgets zone's seed.
func (ss *seedSet) drop(zone string) {
	r, ok := ss.byZone[zone]
	if !ok {
		return
	}
	delete(ss.byZone, zone)
	ss.bytes -= seedRefBytes
	if r.text.refs--; r.text.refs == 0 {
		delete(ss.texts, r.text.data)
		ss.bytes -= seedTextBytes + len(r.text.data)
	}
}

// Seed keeps data, the master file of zone at serial as this process
// wrote it for named to load (a zone it created), as the zone's content
// at serial for Cached (see above). It reports whether the seed is kept
// (not when larger than the bounds allow).
func (u *Updater) Seed(zone string, serial uint32, data []byte) bool {
	c := &u.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seeds.drop(zone)
	return c.seeds.add(zone, serial, data)
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
	sd, ok := c.seeds.byZone[zone]
	if ok && serialLess(sd.serial, serial) {
		c.seeds.drop(zone)
	}
	c.mu.Unlock()
	if !ok || sd.serial != serial {
		return nil
	}
	rrs := parseSeed(zone, sd.file(zone))
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
