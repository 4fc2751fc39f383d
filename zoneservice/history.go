package zoneservice

import (
	"context"
	"strings"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The change history (Service.History): every operation that changed a
// zone appends one entry, with the actor its context carries (WithActor),
// before the operation returns. Record changes enqueue their entry from
// the zone's writer (dnsupdate.WriteOptions.Applied), in the order named
// applied them, so the entries of a zone are in serial order even when
// the writer merged concurrent requests into one UPDATE message (they
// then share its serials, each with its own records); the request waits
// for the entry to be durable before it returns. Changes made elsewhere
// are recorded by Noticed (external.go).

// entry returns the history entry of an operation on zone by the actor
// of ctx.
func (s *Service) entry(ctx context.Context, typ, zone string) history.Entry {
	return entryOf(ctx, s.View, typ, zone)
}

// entryOf is the history entry of an operation on zone of view by the
// actor of ctx.
func entryOf(ctx context.Context, view, typ, zone string) history.Entry {
	a := ActorOf(ctx)
	return history.Entry{Zone: zonemodel.ZoneOfOrigin(zone), View: view, Type: typ, Source: history.SourceAPI,
		Identity: a.Identity, Frontend: a.Frontend, RequestID: a.RequestID}
}

// When the history cannot be written (a full disk, a read-only file
// system, a Log closed under a request), the policy is the same for every
// operation and front end (docs/history.md, "When the history cannot be
// written"): the change was made, so it is answered as made (a client
// must not be told to retry what is done); the entry is logged in full
// at error level (notRecorded), so that the audit trail can be completed
// from the log, and counted by the Log (history.Log.NotRecorded:
// zoneapi_history_write_errors_total);
// /api/v1/ready reports the history failing (history.Log.Check) until
// it takes writes again.

// notRecorded logs the entries of changes that were made but whose
// history entries could not be written, each in full, and counts them
// on the history (history.Log.CountNotRecorded).
func (s *Service) notRecorded(es []history.Entry, err error) {
	notRecorded(s.History, s.log(), es, err)
}

// notRecorded is Service.notRecorded on history h, logging to log.
func notRecorded(h *history.Log, log *zap.Logger, es []history.Entry, err error) {
	h.CountNotRecorded(len(es))
	for _, e := range es {
		log.Error("a change was made but its change history entry could not be written; the entry is logged here instead",
			zap.String("zone", e.Zone), zap.String("view", e.View), zap.String("type", e.Type), zap.String("source", e.Source),
			zap.String("request_id", e.RequestID), zap.Any("entry", e), zap.Error(err))
	}
}

// recordZone appends the entry of a zone operation that succeeded; a
// failure to record is logged with the entry (notRecorded), and the
// operation, which was done, is neither undone nor failed.
func (s *Service) recordZone(ctx context.Context, typ, zone string, withSerial bool) {
	if s.History == nil {
		return
	}
	e := s.entry(ctx, typ, zone)
	if withSerial && s.Updater != nil {
		if soa, err := s.Updater.Client().SOA(ctx, zone); err == nil {
			e.SerialAfter = history.Serial(soa.Serial)
		}
	}
	if _, err := s.History.Append(e); err != nil {
		s.notRecorded([]history.Entry{e}, err)
	}
}

// recordZoneAt is recordZone with the serial named serves the zone at
// after the operation known without asking named (a create's file).
func (s *Service) recordZoneAt(ctx context.Context, typ, zone string, serial uint32) {
	if s.History == nil {
		return
	}
	e := s.entry(ctx, typ, zone)
	if s.Updater != nil {
		e.SerialAfter = history.Serial(serial)
	}
	if _, err := s.History.Append(e); err != nil {
		s.notRecorded([]history.Entry{e}, err)
	}
}

// RecordZoneChange appends the history entry of a zone operation of
// another kind than the service's own methods record (history.ZoneAdopted
// and ZoneImported, for instance) once it succeeded.
func (s *Service) RecordZoneChange(ctx context.Context, typ, zone string) {
	s.recordZone(ctx, typ, zone, true)
}

// recording returns the write options of a record change: the Applied
// callback enqueues the change's entry, and wait waits until it is
// written. wait returns nil: when an entry cannot be written, the change
// (which named applied) is answered as made and the entry is logged
// (notRecorded).
func (r *Records) recording(ctx context.Context, zone string, opt dnsupdate.WriteOptions) (dnsupdate.WriteOptions, func() error) {
	if r.history == nil {
		return opt, func() error { return nil }
	}
	var (
		pending []*history.Pending
		entries []history.Entry
	)
	// The writes merged into one UPDATE are written to the history
	// together: a crash keeps all of the message's entries or none (then
	// the start-up catch-up records them from named's IXFR), never some.
	opt.Hold = r.history.Hold
	opt.Applied = func(a dnsupdate.Applied) {
		if a.HasOldSerial {
			r.fillGap(ctx, zone, a.OldSerial, a.Serial)
		}
		e := entryOf(ctx, r.view, history.RecordsChanged, zone)
		if a.HasOldSerial {
			e.SerialBefore = history.Serial(a.OldSerial)
		}
		if a.HasSerial {
			e.SerialAfter = history.Serial(a.Serial)
		}
		e.Added, e.Removed = RRsets(a.Added), RRsets(a.Removed)
		// EnqueueChanges: when named's NOTIFY of the change was handled
		// first, by a service whose writer is not this one, the change
		// is recorded once, as external.
		pending = append(pending, r.history.EnqueueChanges(e))
		entries = append(entries, e)
	}
	return opt, func() error {
		for i, p := range pending {
			if _, err := p.Wait(); err != nil {
				notRecorded(r.history, r.log(), entries[i:i+1], err)
			}
		}
		return nil
	}
}

// RRsets groups records into history RRsets (owner without its final dot
// and type, in the order first seen), their data in master-file form. A record of class
// ANY (an RRset deleted whose data is not known) gives an RRset without
// records.
func RRsets(rrs []dns.RR) []history.RRset {
	if len(rrs) == 0 {
		return nil
	}
	// Sized for a batch of distinct RRsets, the common large case.
	out := make([]history.RRset, 0, len(rrs))
	type setKey struct {
		name string
		t    uint16
	}
	idx := make(map[setKey]int, len(rrs))
	for _, rr := range rrs {
		h := rr.Header()
		name := strings.TrimSuffix(strings.ToLower(h.Name), ".")
		typ := dns.Type(h.Rrtype).String()
		k := setKey{name, h.Rrtype}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, history.RRset{Name: name, Type: typ, TTL: h.Ttl, Records: []string{}})
		}
		if h.Class == dns.ClassANY {
			continue
		}
		out[i].Records = append(out[i].Records, zonemodel.RDataText(rr))
	}
	return out
}

// fillGap records, before a write that moved the zone from serial old to
// serial new, the changes between the history's last serial of the zone
// and old that it lacks (the process that made them crashed before it
// recorded them, or they were made elsewhere and their NOTIFY is still on
// its way), from named's IXFR, as external. It runs inside the zone's
// writer (the Applied callback), so the entries keep the serials' order.
// Writes merged into one message share old and new: the first records
// the gap, the others find the history at new.
func (r *Records) fillGap(ctx context.Context, zone string, old, new uint32) {
	last, ok := r.history.LastSerial(zone, r.view)
	if !ok || last == old || last == new {
		return
	}
	deltas, full, err := r.updater.Client().IXFR(ctx, zone, last)
	if err != nil {
		r.log().Warn("reading the changes the history lacks failed", zap.String("zone", zone), zap.Uint32("from", last), zap.Error(err))
		return
	}
	var es []history.Entry
	if full != nil {
		if full[0].(*dns.SOA).Serial == old {
			es = append(es, r.fullDiff(zone, last, full))
		} else {
			// named is past this write already (it applied it before
			// Applied): the gap ends at old, not at full's serial.
			es = append(es, r.fullDiffTo(ctx, zone, last, old, full))
		}
	}
	for _, d := range deltas {
		if d.From == old {
			break // this write's own change, and any after it
		}
		es = append(es, external(zone, d.From, d.To, d.Added, d.Deleted))
	}
	for i := range es {
		es[i].View = r.view
	}
	// The gap's entries are written with the next batch; a failure to
	// write them is logged with them (notRecorded), not lost.
	p := r.history.EnqueueChanges(es...)
	go func() {
		if _, err := p.Wait(); err != nil {
			notRecorded(r.history, r.log(), es, err)
		}
	}()
}
