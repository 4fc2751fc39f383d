package dnsupdate

import (
	"context"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Applied is a write named accepted, as WriteOptions.Applied sees it:
// the serials of the UPDATE message that carried it (writes merged into
// one message share them) and what it changed.
type Applied struct {
	// Zone is the zone's name (no final dot).
	Zone string
	// OldSerial and Serial are the zone's serials before and after the
	// message, where known (HasOldSerial, HasSerial).
	OldSerial, Serial       uint32
	HasOldSerial, HasSerial bool
	// Added and Removed are the records the write added and removed:
	// what the zone's writer works out it changed where it knows the
	// RRsets the write touches (known.go); otherwise the record of a
	// single add, and for other writes what named's IXFR reports the
	// message changed (or, when it cannot say, the update section read
	// as intent: a deleted RRset then has no data).
	Added, Removed []dns.RR
}

// applied calls the Applied callbacks of a message's writes, in order,
// once named accepted it. What each write changed is worked out first
// (by the zone's writer, or an IXFR for writes other than single adds);
// the callbacks then run back to back between the writes' Hold and its
// release, so that a consumer can keep the message's records together.
func (u *Updater) applied(ctx context.Context, zone string, ws []*write, s serials, err error) {
	if err != nil {
		return
	}
	type call struct {
		w *write
		a Applied
	}
	calls := make([]call, 0, len(ws))
	var msg *messageDiff // what a merged message changed, read once
	for _, w := range ws {
		if w.applied == nil {
			continue
		}
		a := Applied{Zone: zone, OldSerial: s.old, Serial: s.new, HasOldSerial: s.hasOld, HasSerial: s.hasNew}
		switch {
		case w.local != nil:
			a.Added, a.Removed = w.local.added, w.local.removed
			u.modelledDiffs.Add(1)
			if u.checkModel != nil {
				u.checkModel(zone, s, a, w.update)
			}
		case w.added != nil:
			a.Added = w.added
		case len(ws) == 1:
			a.Added, a.Removed = u.diff(ctx, zone, s, w.update)
			u.readDiffs.Add(1)
		default:
			// An exclusive write of a merged message (take): its part
			// of what the message changed, its RRsets'.
			if msg == nil {
				msg = u.messageDiff(ctx, zone, s, ws)
			}
			a.Added, a.Removed = msg.of(w)
			u.readDiffs.Add(1)
		}
		calls = append(calls, call{w, a})
	}
	var releases []func()
	for _, c := range calls {
		if c.w.hold != nil {
			releases = append(releases, c.w.hold())
		}
	}
	for _, c := range calls {
		c.w.applied(c.a)
	}
	for _, r := range releases {
		r()
	}
}

// diff returns what a message that moved the zone from s.old to s.new
// changed, by IXFR; when named cannot say, the update section's intent.
func (u *Updater) diff(ctx context.Context, zone string, s serials, update []dns.RR) (added, removed []dns.RR) {
	if added, removed, ok := u.ixfrDiff(ctx, zone, s, update); ok {
		return added, removed
	}
	return intent(update)
}

// ixfrDiff reads by IXFR what a message (its update section) that moved
// the zone from s.old to s.new changed; ok is false when named cannot say.
func (u *Updater) ixfrDiff(ctx context.Context, zone string, s serials, update []dns.RR) (added, removed []dns.RR, ok bool) {
	if s.hasOld && s.hasNew {
		// On a pooled connection first (no TCP connect per change);
		// IXFR on a connection of its own when that fails.
		deltas, _, err := u.dns.ixfrPooled(ctx, zone, s.old)
		if err != nil {
			deltas, _, err = u.dns.IXFR(ctx, zone, s.old)
		}
		if err == nil && len(deltas) > 0 && deltas[0].From == s.old && deltas[0].To == s.new {
			added, removed = WithoutSOA(deltas[0].Added), WithoutSOA(deltas[0].Deleted)
			u.unpredicted(zone, update, added, removed, true)
			return added, removed, true
		}
	}
	u.unpredicted(zone, update, nil, nil, false)
	return nil, nil, false
}

// messageDiff is what a merged message changed, read once for its
// exclusive writes.
type messageDiff struct {
	added, removed []dns.RR
	ok             bool
}

func (u *Updater) messageDiff(ctx context.Context, zone string, s serials, ws []*write) *messageDiff {
	var update []dns.RR
	for _, w := range ws {
		update = append(update, w.update...)
	}
	d := &messageDiff{}
	d.added, d.removed, d.ok = u.ixfrDiff(ctx, zone, s, update)
	return d
}

// of is what w changed: the message's changes at w's RRsets (no other
// write of the message touches them), or, when named could not say, w's
// update section's intent.
func (d *messageDiff) of(w *write) (added, removed []dns.RR) {
	if !d.ok {
		return intent(w.update)
	}
	mine := make(map[setKey]bool, len(w.update))
	for _, rr := range w.update {
		mine[keyOf(rr)] = true
	}
	for _, rr := range d.added {
		if mine[keyOf(rr)] {
			added = append(added, rr)
		}
	}
	for _, rr := range d.removed {
		if mine[keyOf(rr)] {
			removed = append(removed, rr)
		}
	}
	return added, removed
}

// unpredicted stops modelling the zone (known.go) for relearnAfter when
// a write's IXFR (read) holds records the model would not predict: a
// signed zone's, or of an RRset the write does not touch. When the IXFR
// failed (not read), what the writer knows is dropped: nothing showed
// whether the zone is modelled well.
func (u *Updater) unpredicted(zone string, update, added, removed []dns.RR, read bool) {
	if read {
		touched := make(map[setKey]bool, len(update))
		for _, rr := range update {
			h := rr.Header()
			touched[setKey{strings.ToLower(h.Name), h.Rrtype}] = true
		}
		surprise := false
		for _, rrs := range [][]dns.RR{added, removed} {
			for _, rr := range rrs {
				h := rr.Header()
				if signedType(h.Rrtype) || !touched[setKey{strings.ToLower(h.Name), h.Rrtype}] {
					surprise = true
				}
			}
		}
		if !surprise {
			return
		}

	}
	zw := u.writer(zone)
	zw.mu.Lock()
	zw.known.drop(zw.total)
	zw.known = nil
	if read {
		zw.noModelUntil = time.Now().Add(relearnAfter)
	}
	zw.mu.Unlock()
}

// intent reads an update section (RFC 2136 section 2.5): class IN adds a
// record, NONE removes one, ANY removes an RRset (returned without data,
// as an ANY record of its type) or every RRset of a name (type ANY).
func intent(update []dns.RR) (added, removed []dns.RR) {
	for _, rr := range update {
		h := rr.Header()
		if h.Rrtype == dns.TypeSOA {
			continue
		}
		switch h.Class {
		case dns.ClassINET:
			added = append(added, rr)
		case dns.ClassNONE:
			c := dns.Copy(rr)
			c.Header().Class = dns.ClassINET
			removed = append(removed, c)
		case dns.ClassANY:
			removed = append(removed, &dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: h.Rrtype, Class: dns.ClassANY}})
		}
	}
	return added, removed
}

// WithoutSOA returns rrs without their SOA records (a copy: rrs is not
// changed), as a change's records are shown: the serial is not a change.
func WithoutSOA(rrs []dns.RR) []dns.RR {
	out := rrs[:0:0]
	for _, rr := range rrs {
		if rr.Header().Rrtype != dns.TypeSOA {
			out = append(out, rr)
		}
	}
	return out
}
