package dnsupdate

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// A batch of adds needs, for each new name, the rule that a CNAME stands
// alone (RFC 1034 §3.6.2; named ignores an add beside a CNAME silently).
// Named can check it, one prerequisite "no CNAME at this name" (RFC 2136
// §2.4.3) per name, which costs named a lookup and a parse per name: about
// a sixth more than the adds alone for 1,000 of them. A zone writer can
// instead keep the set of names that hold a CNAME, known exactly at one
// SOA (a cnameIndex): read from a snapshot, and carried forward by every
// write of this process, each pinned to the SOA the index is at. The
// leader checks a message's guarded names against the index when the
// index is at the SOA it pins the message to (guardPrereqs), which holds
// the same guarantee as the prerequisites: if anything else changed the
// zone since, the SOA moved, named refuses the message (NXRRSET) and
// nothing is applied; the message is then sent again pinned to the SOA
// read, with the prerequisites when the index is not at it.

// indexMinAdds is how many guarded adds a batch needs before a transfer is
// made to build a zone's index; smaller batches keep their prerequisites
// unless an index is already there.
const indexMinAdds = 64

// indexSizeFactor bounds the transfer that builds an index: at most this
// many records per guarded add of the batch, so that a large zone is never
// transferred for a small batch (it keeps its prerequisites).
const indexSizeFactor = 16

// cnameIndex is the set of owner names that hold a CNAME in a zone at one
// SOA. It is immutable once published: a write makes a new one.
type cnameIndex struct {
	soa    *dns.SOA
	owners map[string]struct{} // lower-case absolute names
}

// indexOf builds the index of a snapshot.
func indexOf(s *Snapshot) *cnameIndex {
	ix := &cnameIndex{soa: s.SOA, owners: map[string]struct{}{}}
	for _, rr := range s.RRs {
		if h := rr.Header(); h.Rrtype == dns.TypeCNAME {
			ix.owners[h.Name] = struct{}{} // snapshot names are lower case
		}
	}
	return ix
}

// has reports whether name holds a CNAME.
func (ix *cnameIndex) has(name string) bool {
	_, ok := ix.owners[strings.ToLower(name)]
	return ok
}

// after is the index once a message pinned to soa, setting next, applied
// update: the owners of CNAMEs it adds join (a CNAME it deletes stays: the
// index may name more owners than hold one, never fewer, and a batch
// adding beside such a name takes the prerequisite path). It is nil when
// ix is not at soa.
func (ix *cnameIndex) after(soa, next *dns.SOA, update []dns.RR) *cnameIndex {
	if ix == nil || !dns.IsDuplicate(ix.soa, soa) {
		return nil
	}
	owners := ix.owners
	for _, rr := range update {
		h := rr.Header()
		if h.Rrtype != dns.TypeCNAME || h.Class != dns.ClassINET {
			continue
		}
		name := strings.ToLower(h.Name)
		if _, ok := owners[name]; ok {
			continue
		}
		if len(owners) == len(ix.owners) { // copy on the first change
			owners = make(map[string]struct{}, len(ix.owners)+1)
			for k := range ix.owners {
				owners[k] = struct{}{}
			}
		}
		owners[name] = struct{}{}
	}
	return &cnameIndex{soa: next, owners: owners}
}

// wrote carries the zone's index over a message that was applied: pinned
// to soa and setting next (nil: the new serial is not known exactly, so
// the index goes). Called with zw.mu held.
func (zw *zoneWriter) wrote(soa, next *dns.SOA, update []dns.RR) {
	if soa == nil || next == nil {
		zw.index = nil
		zw.known.drop(zw.total)
		zw.known = nil
		return
	}
	zw.index = zw.index.after(soa, next, update)
	if zw.size == 0 {
		return // not known
	}
	for _, rr := range update {
		if rr.Header().Class == dns.ClassINET {
			zw.size++
		}
	}
}

// offer makes s the zone's index unless the index is as new.
func (zw *zoneWriter) offer(s *Snapshot) {
	zw.mu.Lock()
	defer zw.mu.Unlock()
	if zw.index == nil || serialLess(zw.index.soa.Serial, s.Serial()) {
		zw.index = indexOf(s)
		zw.size = len(s.RRs)
	}
	zw.learn(s)
}

// guardedBatch sends a simple batch (isSimple) as one write whose guarded
// names (simpleBody) the zone's writer checks when it sends the message:
// against the zone's CNAME index when the index is at the SOA the message
// is pinned to, else with one prerequisite per name. It builds the index
// (one transfer, bounded by indexSizeFactor) for a batch of at least
// indexMinAdds guarded adds when the zone has none. Without IfSerial the
// write shares a message with the writes queued beside it that touch other
// RRsets (group commit); named applies the message all or nothing, and
// when it refuses a merged message each write is sent alone. done is false
// when a guarded name may hold a CNAME (the index names it, or named
// refused the prerequisite) or a name where it adds NS records a DNAME:
// the snapshot path then finds which change conflicts.
func (u *Updater) guardedBatch(ctx context.Context, zone string, changes []change, opt WriteOptions) (*ChangeResult, error, bool) {
	prereq, body, guarded, res := simpleBody(zonemodel.Origin(zone), changes)
	zw := u.writer(zone)
	now := time.Now()
	zw.mu.Lock()
	ix, size, unpinned, noIndex := zw.index, zw.size, now.Before(zw.unpinnedUntil), now.Before(zw.noIndexUntil)
	zw.mu.Unlock()
	if !unpinned && ix == nil && !noIndex && len(guarded) >= indexMinAdds && (size == 0 || size <= indexSizeFactor*len(guarded)) {
		_, err := u.snapshot(ctx, zone, indexSizeFactor*len(guarded))
		zw.mu.Lock()
		if err != nil && !errors.Is(err, errTooLarge) {
			// Transfers refused (allow-transfer) or failing: the
			// prerequisites do without, and no batch tries again for a
			// while.
			zw.noIndexUntil = now.Add(relearnAfter)
		}
		ix = zw.index
		zw.mu.Unlock()
	}
	if ix != nil {
		for _, name := range guarded {
			if ix.has(name) {
				return nil, nil, false
			}
		}
	}
	w := &write{guarded: true, guards: guarded, prereq: prereq, update: body, ifSerial: opt.IfSerial, method: opt.SerialMethod,
		merge: opt.IfSerial == nil, exclusive: true, applied: opt.Applied, hold: opt.Hold}
	s, err := u.commit(ctx, zone, w)
	switch {
	case err == nil:
		res.Zone = zone
		return s.into(res), nil, true
	case IsRcode(err, dns.RcodeYXRrset):
		return nil, nil, false
	}
	return nil, err, true
}
