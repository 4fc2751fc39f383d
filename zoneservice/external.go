package zoneservice

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Changes made outside the API (nsupdate, another tool, a zone file
// edited and reloaded) are recorded when named tells of them: named sends
// a NOTIFY to the API's listener on every change of a zone (also-notify;
// see docs/history.md), the front end calls Notice, and Noticed asks
// named's IXFR (RFC 1995) for the changes since the serial the history
// last recorded, one entry per step, with Source "external". Noticed runs
// as a turn of the zone's writer (dnsupdate.Updater.Exclusive), so a
// change this service made is either recorded already (its serial is the
// history's) or not yet sent; a change another service of the process
// made (the external-dns webhook has writers of its own) is waited for
// when it is in flight (inflight.go), so that it is recorded by its
// writer, with who made it; history.Log.EnqueueChanges records it once in
// any case.

// Noticed records the changes of the zone made since the history's last
// serial of it (see above). A zone the history has no serial of gets the
// current one as its baseline, and nothing is recorded. When named
// answers with the whole zone (its journal does not reach back, there is
// none, or the changes outweigh the zone: max-ixfr-ratio), one entry is
// recorded, with the difference from the zone's content at the history's
// serial when the updater knows it (fullDiff), else with the two serials
// and no records: set ixfr-from-differences and max-ixfr-ratio unlimited
// in named.conf to have named send every change (docs/history.md).
func (r *Records) Noticed(ctx context.Context, zone string) error {
	if r.history == nil || r.updater == nil {
		return nil
	}
	zone = zonemodel.ZoneOfOrigin(strings.ToLower(zone))
	var err error
	if xerr := r.updater.Exclusive(ctx, zone, func() { err = r.catchUp(ctx, zone) }); xerr != nil {
		return xerr
	}
	return err
}

// Noticed is Records.Noticed.
func (s *Service) Noticed(ctx context.Context, zone string) error {
	return s.Records().Noticed(ctx, zone)
}

// noticedNow runs Noticed, logging a failure (a reload's or thaw's
// changes are then recorded at the next NOTIFY or start).
func (s *Service) noticedNow(ctx context.Context, zone string) {
	if err := s.Records().Noticed(ctx, zone); err != nil {
		s.log().Debug("recording what a reload changed failed", zap.String("zone", zone), zap.Error(err))
	}
}

func (r *Records) catchUp(ctx context.Context, zone string) error {
	soa, err := r.updater.Client().SOA(ctx, zone)
	if err != nil {
		return err
	}
	last, ok := r.history.LastSerial(zone, r.view)
	if !ok {
		r.history.Baseline(zone, r.view, soa.Serial)
		return nil
	}
	if last == soa.Serial {
		return nil
	}
	deltas, full, err := r.updater.Client().IXFR(ctx, zone, last)
	if err != nil {
		return err
	}
	var es []history.Entry
	if full != nil {
		es = append(es, r.fullDiff(zone, last, full))
	}
	for _, d := range deltas {
		es = append(es, external(zone, d.From, d.To, d.Added, d.Deleted))
	}
	for i := range es {
		es[i].View = r.view
	}
	if len(es) == 0 {
		return nil
	}
	// Another service's writer may be about to record some of these
	// changes, which named applied already (inflight.go): they are its.
	wctx, cancel := context.WithTimeout(ctx, r.timeout)
	r.awaitOtherWriters(wctx, zone)
	cancel()
	// Another service's writer may have recorded some of these changes
	// since LastSerial was read: EnqueueChanges records each once.
	if _, err := r.history.EnqueueChanges(es...).Wait(); err != nil {
		notRecorded(r.history, r.log(), es, err)
		return err
	}
	return nil
}

// fullDiff is the entry of a change named answered an IXFR with the whole
// zone for: the difference from the zone's content at serial from, when
// the updater holds it (a recent read, the last such answer, or the file
// of a zone created here: dnsupdate.Updater.Cached); otherwise the two
// serials alone, with a warning. The whole zone is kept as the zone's
// content at its serial (dnsupdate.Updater.Transferred).
func (r *Records) fullDiff(zone string, from uint32, full []dns.RR) history.Entry {
	to := full[0].(*dns.SOA).Serial
	old := r.updater.Cached(zone, from)
	if old == nil {
		old = r.fileAt(zone, from, full)
	}
	// The zone at to is the base of the next such difference.
	defer r.updater.Transferred(zone, full)
	if old != nil {
		added, removed := dnsupdate.Diff(old.RRs, full)
		return external(zone, from, to, added, removed)
	}
	r.log().Warn("named sent the whole zone for an IXFR and its content before is not known: the change is recorded without its records (ixfr-from-differences makes named keep them)",
		zap.String("zone", zone), zap.Uint32("from", from), zap.Uint32("to", to))
	return external(zone, from, to, nil, nil)
}

// fullDiffTo is the entry of the changes from serial from to serial to
// where named answered an IXFR with the whole zone at a later serial
// (full; a gap that a write already applied follows, see fillGap): the
// difference from the zone's content at from (as fullDiff finds it) to
// its content at to, which is full with the steps named's IXFR from to
// reports undone. Where either is not known (named answers that IXFR
// with the whole zone too), the two serials alone.
func (r *Records) fullDiffTo(ctx context.Context, zone string, from, to uint32, full []dns.RR) history.Entry {
	old := r.updater.Cached(zone, from)
	if old == nil {
		old = r.fileAt(zone, from, full)
	}
	// The zone at full's serial is the base of the next such difference.
	defer r.updater.Transferred(zone, full)
	if old != nil {
		deltas, _, err := r.updater.Client().IXFR(ctx, zone, to)
		if at, ok := undoDeltas(full, deltas, to); err == nil && ok {
			added, removed := dnsupdate.Diff(old.RRs, at)
			return external(zone, from, to, added, removed)
		}
	}
	r.log().Warn("named sent the whole zone for an IXFR and the zone's content before or at the end of the change is not known: the change is recorded without its records (ixfr-from-differences makes named keep them)",
		zap.String("zone", zone), zap.Uint32("from", from), zap.Uint32("to", to))
	return external(zone, from, to, nil, nil)
}

// undoDeltas returns the zone's content at serial to: full (the zone at
// a later serial) with deltas, the steps from to up to full's serial,
// undone; ok is false when the deltas do not chain from to to full's
// serial.
func undoDeltas(full []dns.RR, deltas []dnsupdate.Delta, to uint32) (at []dns.RR, ok bool) {
	if len(full) == 0 || len(deltas) == 0 || deltas[0].From != to || deltas[len(deltas)-1].To != full[0].(*dns.SOA).Serial {
		return nil, false
	}
	for i := 1; i < len(deltas); i++ {
		if deltas[i].From != deltas[i-1].To {
			return nil, false
		}
	}
	key := func(rr dns.RR) string {
		c := dns.Copy(rr)
		c.Header().Name = strings.ToLower(c.Header().Name)
		return c.String()
	}
	set := make(map[string]dns.RR, len(full))
	var order []string
	put := func(rr dns.RR) {
		k := key(rr)
		if _, ok := set[k]; !ok {
			order = append(order, k)
		}
		set[k] = rr
	}
	for _, rr := range full {
		if rr.Header().Rrtype != dns.TypeSOA {
			put(rr)
		}
	}
	for i := len(deltas) - 1; i >= 0; i-- {
		for _, rr := range deltas[i].Added {
			delete(set, key(rr))
		}
		for _, rr := range deltas[i].Deleted {
			if rr.Header().Rrtype != dns.TypeSOA {
				put(rr)
			}
		}
	}
	for _, k := range order {
		if rr, ok := set[k]; ok {
			at = append(at, rr)
			delete(set, k) // once, where put again after a delete
		}
	}
	return at, true
}

// zoneFileMax bounds the zone file fileAt reads.
const zoneFileMax = 256 << 10

// fileAt returns the zone's content at serial from its file in the zone
// directory, when that file holds the zone at that serial: the file the
// API wrote at create (or an import), or named's dump of the dynamic zone
// at that serial. This serves where the updater knows nothing of the
// zone, as after a restart of Caddy between a change and its entry. A
// signed zone's file is not what named serves (full has RRSIGs), and a
// file over zoneFileMax, at another serial or that does not parse as
// named loads it (an $INCLUDE is not followed) is not used: nil.
func (r *Records) fileAt(zone string, from uint32, full []dns.RR) *dnsupdate.Snapshot {
	if r.files == nil {
		return nil
	}
	for _, rr := range full {
		if rr.Header().Rrtype == dns.TypeRRSIG {
			return nil
		}
	}
	data, ok := r.files.ReadFile(zone, zoneFileMax)
	if !ok || !r.updater.Seed(zone, from, data) {
		return nil
	}
	return r.updater.Cached(zone, from)
}

// external is the entry of a change made elsewhere.
func external(zone string, from, to uint32, added, removed []dns.RR) history.Entry {
	return history.Entry{Zone: zone, Type: history.RecordsChanged, Source: history.SourceExternal,
		SerialBefore: history.Serial(from), SerialAfter: history.Serial(to),
		Added: RRsets(dnsupdate.WithoutSOA(added)), Removed: RRsets(dnsupdate.WithoutSOA(removed))}
}

// CatchUp runs Noticed for every zone the service manages: at start, it
// records what changed while the API was not running, including a change
// the API made whose entry a crash kept from being written (recorded as
// external: who asked is not known any more). Errors are logged.
func (s *Service) CatchUp(ctx context.Context) {
	if s.History == nil {
		return
	}
	zones, _, _, err := s.Store.List("", "", 0)
	if err != nil {
		s.log().Warn("listing zones for the history's catch-up failed", zap.Error(err))
		return
	}
	// With the inventory, one read of named's statistics tells every
	// zone's serial: only the zones whose serial moved since the
	// history's last entry are asked (an SOA query, then IXFR), not
	// every zone.
	var snap *inventory.Snapshot
	view := s.View
	if s.Inventory != nil {
		if sn, err := s.Inventory.Fresh(ctx); err == nil {
			snap = sn
			if view == "" {
				view = defaultViewOf(snap)
			}
		}
	}
	for _, z := range zones {
		if z.Type != "" && z.Type != "primary" && z.Type != "master" {
			continue
		}
		if snap != nil {
			if iz, ok := snap.Find(z.Name, view); ok && iz.HasSerial {
				if last, ok := s.History.LastSerial(z.Name, s.View); ok && last == iz.Serial {
					continue
				}
			}
		}
		if err := s.Noticed(ctx, z.Name); err != nil {
			s.log().Debug("history catch-up of a zone failed", zap.String("zone", z.Name), zap.Error(err))
		}
	}
}

// Notices runs Noticed for the zones handed to notice, one at a time on
// one goroutine until ctx ends, merging the notices of a zone that come
// while it waits: a burst of NOTIFYs costs one IXFR.
func (s *Service) Notices(ctx context.Context) (notice func(zone string)) {
	queue := noticeQueue(ctx, func(zone string) {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := s.Noticed(cctx, zone); err != nil {
			s.log().Debug("recording a change made elsewhere failed", zap.String("zone", zone), zap.String("view", s.View), zap.Error(err))
		}
	})
	return func(zone string) {
		s.statusChanged(zone, false) // the zone GET's cache (zonecache.go)
		queue(zone)
	}
}

// Follows reports whether the service records the changes of zone made
// elsewhere when named tells of them although it is not the default
// view's (ViewNotices): the history has a serial of the zone in the view
// (a change of it was recorded), the service's index holds it (created
// or adopted through the API in the view), or the Inventory's snapshot,
// when there is one, lists it in the view (a named.conf zone of the view;
// the snapshot is at most twice its refresh old, see package inventory).
func (s *Service) Follows(ctx context.Context, zone string) bool {
	zone = zonemodel.ZoneOfOrigin(strings.ToLower(zone))
	if s.History == nil {
		return false
	}
	if _, ok := s.History.LastSerial(zone, s.View); ok {
		return true
	}
	if s.Store != nil {
		if _, ok, err := s.Store.Get(zone); ok && err == nil {
			return true
		}
	}
	if s.Inventory != nil && s.View != "" {
		if snap, err := s.Inventory.Zones(ctx); err == nil {
			for _, z := range snap.Named(zone) {
				if z.View == s.View {
					return true
				}
			}
		}
	}
	return false
}

// ViewNotices is Notices for a server with views, whose zones are served
// by one Service per view: def, the default view's (or the one of the
// zones addressed without a view; nil: none), and others. A NOTIFY names
// a zone, not its view (named sends every view's NOTIFYs alike), so
// each zone handed to notice is handed to def, as Notices would, and to
// every service of others that Follows it; each of those asks named for
// the zone's SOA in its own view (signed with the view's key) and
// records what moved there, nothing where the serial did not move. The
// services work concurrently, each on a goroutine of its own; which of
// others follow a zone is decided on one more goroutine, so the
// listener's goroutine never waits (Follows reads each view's index).
func ViewNotices(ctx context.Context, def *Service, others []*Service) (notice func(zone string)) {
	var defNotice func(string)
	if def != nil {
		defNotice = def.Notices(ctx)
	}
	notices := make([]func(string), len(others))
	for i, o := range others {
		notices[i] = o.Notices(ctx)
	}
	return noticeQueue(ctx, func(zone string) {
		if defNotice != nil {
			defNotice(zone)
		}
		for i, o := range others {
			if o.Follows(ctx, zone) {
				notices[i](zone)
			}
		}
	})
}

// noticeQueue runs fn for the zones handed to notice, one at a time on
// one goroutine until ctx ends, merging the notices of a zone that come
// while it waits. notice never blocks.
func noticeQueue(ctx context.Context, fn func(zone string)) (notice func(zone string)) {
	var mu sync.Mutex
	dirty := map[string]bool{}
	var order []string
	kick := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			}
			for {
				mu.Lock()
				if len(order) == 0 {
					mu.Unlock()
					break
				}
				z := order[0]
				order = order[1:]
				delete(dirty, z)
				mu.Unlock()
				fn(z)
			}
		}
	}()
	return func(zone string) {
		mu.Lock()
		if !dirty[zone] {
			dirty[zone] = true
			order = append(order, zone)
		}
		mu.Unlock()
		select {
		case kick <- struct{}{}:
		default:
		}
	}
}
