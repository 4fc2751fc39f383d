package dnsupdate

import (
	"encoding/binary"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// What a write changed (WriteOptions.Applied) is worked out in this
// process where it can be known exactly, instead of asking named by IXFR
// after the write. Every message is pinned to the SOA the writer last saw,
// so when named accepts it the zone was exactly at that SOA; a zone
// writer keeps the content of some of the zone's RRsets at that SOA (a
// knownZone): from a snapshot (all of them), and from the writes that
// replaced an RRset whole (an RRset delete followed by its new records:
// the content after is the new records, whatever was there before). Each
// message named accepts carries it forward to the SOA the message set,
// with named's rules for an update section applied to the RRsets it
// touches (RFC 2136 §3.4.2, as BIND applies them):
//
//   - an RRset delete (class ANY) empties the RRset;
//   - a record delete (class NONE) removes the record of equal data,
//     whatever its TTL;
//   - an add (class IN) of data the RRset holds at the same TTL changes
//     nothing; otherwise the record joins the RRset, and when its TTL
//     differs from the RRset's, every record of the RRset takes the new
//     TTL (BIND keeps one TTL per RRset).
//
// The change is then the difference of the RRsets before and after, the
// records compared by data and TTL, which is what named's journal (and so
// its IXFR) holds for the message: BIND's diff cancels a delete and an add
// of the same record.
//
// Only records whose data holds no domain name and that named treats by
// these rules alone are modelled (knownTypes); a message with any other
// record (CNAME, NS, MX, DNSSEC types, a delete of every RRset of a name,
// ...) drops what the writer knows, and the change is read by IXFR as
// before. So do a write that named answers with another serial than the
// one it set, an unpinned write, and any write whose RRsets' content
// before is not known: the IXFR then says what it changed, and if that
// shows records the model does not predict (a signed zone's RRSIGs and
// NSECs), the writer stops modelling the zone for relearnAfter. Adds
// beside a CNAME, which named ignores silently, never reach named from
// this package's write paths (a "no CNAME" prerequisite, the CNAME index
// or a snapshot's check guard each of them: write.guarded); Apply's
// messages are not guarded and are read by IXFR.
//
// Memory: the RRsets learned from writes are bounded per zone
// (knownZoneMax records, or up to knownBaseMax with the snapshot for a
// zone known whole) and over all zones (knownTotalMax records); a zone
// that would pass either bound forgets what it knows. A snapshot is kept
// as the base of a zone's knowledge only when it has at most knownBaseMax
// records; it is the snapshot the updater's cache holds anyway (or, once
// the zone moved on, one more per zone until its next snapshot), and the
// writer forgets it when the cache drops it (snapshot.go's bound): the
// RRsets learned from writes stay, the others are read by IXFR again.

// knownZoneMax bounds the records of RRsets learned from writes, per zone.
const knownZoneMax = 4096

// knownTotalMax bounds the records of RRsets learned from writes over all
// zones of an Updater (about 100-200 bytes each).
const knownTotalMax = 200_000

// knownBaseMax bounds the snapshots kept as the base of what a zone's
// writer knows.
const knownBaseMax = 100_000

// knownTypes are the types whose records the writer models: no domain
// name in their data (so that BIND's case-sensitive and canonical
// comparisons agree) and no special treatment by named's update code.
var knownTypes = map[uint16]bool{
	dns.TypeA: true, dns.TypeAAAA: true, dns.TypeTXT: true, dns.TypeSPF: true, dns.TypeCAA: true,
	dns.TypeSSHFP: true, dns.TypeTLSA: true, dns.TypeSMIMEA: true, dns.TypeOPENPGPKEY: true,
	dns.TypeHINFO: true, dns.TypeLOC: true, dns.TypeURI: true,
}

// setKey names an RRset: a lower-case absolute owner and a type.
type setKey struct {
	name string
	t    uint16
}

// knownZone is the content of some of a zone's RRsets at one SOA, exact.
// It belongs to its zone writer and is changed only under its lock.
type knownZone struct {
	soa *dns.SOA
	// base, when set, holds every RRset that sets lacks.
	base *Snapshot
	// sets are RRsets learned from writes, packed (packRecs: no pointers
	// for the garbage collector to follow; an empty string: known to be
	// empty).
	sets map[setKey]string
	n    int // records in sets
}

// knownCount is the records in the knownZone sets of all zone writers of
// one Updater.
type knownCount = atomic.Int64

// rec is a record of a modelled RRset: its TTL and its data in wire
// form, and the record itself when one is at hand (from a snapshot or an
// update; records learned earlier are kept packed and rebuilt when a
// change lists them).
type rec struct {
	ttl  uint32
	data string
	rr   dns.RR
}

// recOf returns rr as a rec of class IN; ok is false when its data cannot
// be packed.
func recOf(rr dns.RR) (rec, bool) {
	d, ok := rdataWire(rr)
	if rr.Header().Class != dns.ClassINET {
		rr = dns.Copy(rr)
		rr.Header().Class = dns.ClassINET
	}
	return rec{ttl: rr.Header().Ttl, data: d, rr: rr}, ok
}

// record returns r as a record of the RRset key, nil if it cannot be
// rebuilt.
func (r rec) record(key setKey) dns.RR {
	if r.rr != nil {
		return r.rr
	}
	h := dns.RR_Header{Name: key.name, Rrtype: key.t, Class: dns.ClassINET, Ttl: r.ttl, Rdlength: uint16(len(r.data))}
	rr, _, err := dns.UnpackRRWithHeader(h, []byte(r.data), 0)
	if err != nil {
		return nil
	}
	return rr
}

// packRecs packs records as TTL (4 bytes), data length (2) and data each.
func packRecs(rs []rec) string {
	n := 0
	for _, r := range rs {
		n += 6 + len(r.data)
	}
	b := make([]byte, 0, n)
	for _, r := range rs {
		b = binary.BigEndian.AppendUint32(b, r.ttl)
		b = binary.BigEndian.AppendUint16(b, uint16(len(r.data)))
		b = append(b, r.data...)
	}
	return string(b)
}

// unpackRecs reverses packRecs.
func unpackRecs(s string) []rec {
	var out []rec
	for len(s) >= 6 {
		ttl := binary.BigEndian.Uint32([]byte(s[:4]))
		n := int(binary.BigEndian.Uint16([]byte(s[4:6])))
		out = append(out, rec{ttl: ttl, data: s[6 : 6+n]})
		s = s[6+n:]
	}
	return out
}

// lookup returns the RRset's records and whether they are known.
func (k *knownZone) lookup(key setKey) ([]rec, bool) {
	if packed, ok := k.sets[key]; ok {
		return unpackRecs(packed), true
	}
	if k.base == nil {
		return nil, false
	}
	var out []rec
	for _, rr := range k.base.At(key.name) {
		if rr.Header().Rrtype == key.t {
			r, ok := recOf(rr)
			if !ok {
				return nil, false
			}
			out = append(out, r)
		}
	}
	return out, true
}

// drop forgets the zone's sets, giving their count back.
func (k *knownZone) drop(total *knownCount) {
	if k != nil && k.n > 0 {
		total.Add(int64(-k.n))
		k.n = 0
		k.sets = nil
	}
}

// modelled is what the model says a message's writes changed.
type modelled struct {
	added, removed []dns.RR
}

// setState is an RRset during a message: its records, whether known.
type setState struct {
	key    setKey
	rrs    []rec
	before []rec // its records before the write that touches it now
	known  bool
	write  int    // the last write of the message that touched it, +1
	ttl    uint32 // the RRset's TTL when it holds records
}

// model carries the zone writer's knowledge over a message that named
// applied, pinned to soa and setting next: each write of ws whose
// change is known exactly gets it (w.local). Called with zw.mu held.
func (zw *zoneWriter) model(soa, next *dns.SOA, ws []*write) {
	total := zw.total
	k := zw.known
	if k != nil && !dns.IsDuplicate(k.soa, soa) {
		k.drop(total)
		k = nil
	}
	if time.Now().Before(zw.noModelUntil) {
		k.drop(total)
		zw.known = nil
		return
	}
	n := 0
	for _, w := range ws {
		n += len(w.update)
		w.local = nil
	}
	for _, w := range ws {
		for _, rr := range w.update {
			if !knownTypes[rr.Header().Rrtype] {
				// Not modelled: named's IXFR says what the message did.
				k.drop(total)
				zw.known = nil
				return
			}
		}
	}
	if k == nil {
		k = &knownZone{soa: soa}
	}
	states := make([]setState, 0, n)
	index := make(map[setKey]int, n)
	var olds []int // the states the current write touches
	for wi, w := range ws {
		olds = olds[:0]
		exact := true
		for _, rr := range w.update {
			h := rr.Header()
			key := setKey{strings.ToLower(h.Name), h.Rrtype}
			i, ok := index[key]
			if !ok {
				rrs, known := k.lookup(key)
				i = len(states)
				states = append(states, setState{key: key, rrs: rrs, known: known})
				if len(rrs) > 0 {
					states[i].ttl = rrs[0].ttl
				}
				index[key] = i
			}
			s := &states[i]
			if s.write != wi+1 {
				s.write = wi + 1
				s.before = s.rrs
				olds = append(olds, i)
				if !s.known {
					exact = false
				}
			}
			if h.Class == dns.ClassANY {
				s.rrs, s.known, s.ttl = nil, true, 0
				continue
			}
			r, packed := recOf(rr)
			if !packed {
				s.known, s.rrs = false, nil
				exact = false
			}
			switch h.Class {
			case dns.ClassNONE:
				if s.known {
					s.rrs = without(s.rrs, r)
				}
			case dns.ClassINET:
				if !w.guarded {
					// named ignores an add beside a CNAME: unless
					// the name is known to hold none, what the add
					// did is not known.
					if c, ok := k.lookup(setKey{key.name, dns.TypeCNAME}); !ok || len(c) > 0 {
						s.known, s.rrs = false, nil
						exact = false
					}
				}
				if s.known {
					s.rrs, s.ttl = withAdd(s.rrs, s.ttl, r)
				}
			default:
				s.known, s.rrs = false, nil
				exact = false
			}
		}
		if exact {
			w.local = changeOf(states, olds)
		}
	}
	// Publish: the new content of every touched RRset, or that it is no
	// longer known.
	k.soa = next
	if k.sets == nil {
		k.sets = make(map[setKey]string, len(states))
	}
	added := 0
	for i := range states {
		s := &states[i]
		if old, had := k.sets[s.key]; had {
			added -= len(unpackRecs(old))
			if !s.known {
				delete(k.sets, s.key)
			}
		}
		if !s.known {
			// The base would answer for it: it is stale now.
			k.base = nil
			continue
		}
		k.sets[s.key] = packRecs(s.rrs)
		added += len(s.rrs)
	}
	k.n += added
	total.Add(int64(added))
	limit := knownZoneMax
	if k.base != nil {
		// The zone is known whole: it may grow to knownBaseMax.
		limit = max(limit, knownBaseMax-len(k.base.RRs))
	}
	if k.n > limit || total.Load() > knownTotalMax {
		// Over a bound: the zone's writer forgets what it knows.
		k.drop(total)
		zw.known = nil
		return
	}
	zw.known = k
}

// changeOf is the change of the RRsets olds of states: the records
// before that are not after (same data and TTL), and the converse; nil
// when a record cannot be rebuilt.
func changeOf(states []setState, olds []int) *modelled {
	m := &modelled{}
	for _, i := range olds {
		s := &states[i]
		for _, r := range s.before {
			if !holds(s.rrs, r) {
				rr := r.record(s.key)
				if rr == nil {
					return nil
				}
				m.removed = append(m.removed, rr)
			}
		}
		for _, r := range s.rrs {
			if !holds(s.before, r) {
				rr := r.record(s.key)
				if rr == nil {
					return nil
				}
				if m.added == nil {
					m.added = make([]dns.RR, 0, len(olds))
				}
				m.added = append(m.added, rr)
			}
		}
	}
	return m
}

// without returns rs less the record whose data equals r's (RFC 2136
// §3.4.2.4: the TTL of a delete is not compared).
func without(rs []rec, r rec) []rec {
	out := rs[:0:0]
	for _, x := range rs {
		if x.data != r.data {
			out = append(out, x)
		}
	}
	return out
}

// withAdd returns the RRset of TTL ttl once r is added: unchanged when it
// holds r's data at r's TTL; otherwise r joins, and every record takes
// r's TTL.
func withAdd(rs []rec, ttl uint32, r rec) ([]rec, uint32) {
	has := false
	for _, x := range rs {
		if x.data == r.data {
			has = true
		}
	}
	if has && r.ttl == ttl {
		return rs, ttl
	}
	out := make([]rec, 0, len(rs)+1)
	for _, x := range rs {
		if x.data == r.data {
			continue
		}
		if x.ttl != r.ttl {
			x = rec{ttl: r.ttl, data: x.data} // rebuilt with its new TTL
		}
		out = append(out, x)
	}
	return append(out, r), r.ttl
}

// holds reports whether rs holds a record of r's data and TTL.
func holds(rs []rec, r rec) bool {
	for _, x := range rs {
		if x.ttl == r.ttl && x.data == r.data {
			return true
		}
	}
	return false
}

// sameData reports whether two records hold the same data, compared in
// wire form as named compares them (hex and base64 fields in any case or
// layout compare equal).
func sameData(a, b dns.RR) bool {
	x, ok := rdataWire(a)
	y, ok2 := rdataWire(b)
	return ok && ok2 && x == y
}

// rdataWire returns rr's data in wire form; ok is false if it cannot be
// packed.
func rdataWire(rr dns.RR) (string, bool) {
	if a, ok := rr.(*dns.A); ok && len(a.A) == net.IPv4len {
		// Most records: the data is the address's 4 bytes, as PackRR
		// writes them; the owner must pack all the same.
		var name [256]byte
		if _, err := dns.PackDomainName(a.Hdr.Name, name[:], 0, nil, false); err != nil {
			return "", false
		}
		return string(a.A), true
	}
	buf := make([]byte, dns.Len(rr)+16)
	off, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		return "", false
	}
	var name [256]byte
	n, err := dns.PackDomainName(rr.Header().Name, name[:], 0, nil, false)
	if err != nil || n+10 > off {
		return "", false
	}
	return string(buf[n+10 : off]), true
}

// learn makes s (a snapshot at the zone's SOA) the base of what the zone's
// writer knows, unless it knows a newer state or s is too large or
// signed. Called with zw.mu held.
func (zw *zoneWriter) learn(s *Snapshot) {
	if len(s.RRs) > knownBaseMax || time.Now().Before(zw.noModelUntil) {
		return
	}
	if k := zw.known; k != nil && serialLess(s.Serial(), k.soa.Serial) {
		return
	}
	for _, rr := range s.RRs {
		if signedType(rr.Header().Rrtype) {
			return
		}
	}
	zw.known.drop(zw.total)
	zw.known = &knownZone{soa: s.SOA, base: s}
}

// signedType reports whether t is a type named adds to a signed zone.
func signedType(t uint16) bool {
	switch t {
	case dns.TypeRRSIG, dns.TypeNSEC, dns.TypeNSEC3, dns.TypeNSEC3PARAM, dns.TypeDNSKEY, dns.TypeCDS, dns.TypeCDNSKEY, dns.TypeKEY:
		return true
	}
	return false
}
