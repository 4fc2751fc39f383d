package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// Writes to one zone go through the zone's writer: at most one UPDATE
// message per zone is in flight from this process (named applies a zone's
// updates one at a time anyway), and single-record adds and simple
// batches (a PowerDNS PATCH of a few RRsets) that arrive while one is in
// flight share the next message (group commit): they cost named one
// journal write and one serial bump instead of one each. Named applies a
// message all or nothing; when it refuses a merged one, each write is sent
// alone, so that only the culprit fails.
//
// Every message is pinned to the SOA the writer last saw (prerequisite
// "the SOA is exactly this record") and sets the next serial itself (an
// added SOA record with the serial that named's serial-update-method
// would give, configured as WriteOptions.SerialMethod; named takes it
// instead of computing one), so the old and new serial of every write are
// known exactly without asking named again. When another writer (another
// process, nsupdate, a reload) moved the zone, named answers NXRRSET; the
// writer reads the SOA and sends the message again. A zone whose pin never
// matches (named checks it against the unsigned side of an inline-signed
// zone) is written unpinned, with the serials read before and after; a zone
// whose update-policy refuses the key the SOA is written pinned without the
// SOA add, with the serial read after. Both are tried again after
// relearnAfter.

// mergeBytes bounds the size of the records of writes merged into one
// UPDATE message, far below the 64 KiB limit of a DNS message.
const mergeBytes = 16 << 10

// write is one change (prerequisites and updates) waiting for a writer.
type write struct {
	prereq []dns.RR
	update []dns.RR
	// merge allows the write to share a message with other merge writes:
	// single-record adds and simple batches, whose prerequisites no other
	// write of the message can invalidate (no CNAME added).
	merge bool
	// exclusive: the write shares no RRset with the other writes of its
	// message (a batch: what named's IXFR says the message changed at its
	// RRsets is then what the batch changed).
	exclusive bool
	// guards are the names where the write adds records that cannot sit
	// beside a CNAME: the leader checks them against the zone's CNAME
	// index when the index is at the SOA the message is pinned to, and
	// otherwise sends one prerequisite "no CNAME here" per name.
	guards []string
	// ifSerial requires the zone to be at this serial (If-Match).
	ifSerial *uint32
	// method sets the next serial; only writes of one method merge.
	method SerialMethod
	// exact pins the message to this SOA (a snapshot's); an NXRRSET is
	// returned to the caller, which prepares the write again.
	exact *dns.SOA
	// soa is the SOA the write sets (WriteOptions.SOA), with exact: the
	// message's SOA add is this record instead of the pinned one with
	// the next serial.
	soa  *dns.SOA
	size int

	// added is the record of a single add, its change when the writer
	// does not know its RRset (local); otherwise, with applied set, the
	// leader asks named by IXFR what the message changed.
	added []dns.RR
	// applied, if set, is called by the leader once named accepted the
	// write, in the order named applied the writes (WriteOptions.Applied).
	applied func(Applied)
	// guarded: every add of the write that cannot sit beside a CNAME is
	// known not to be beside one when named applies it (a prerequisite,
	// the CNAME index or a snapshot's check), so named does not ignore
	// it (see known.go).
	guarded bool
	// local is what the write changed, worked out from what the writer
	// knows of the zone (known.go); nil: not known, read by IXFR.
	local *modelled
	// hold is WriteOptions.Hold.
	hold func() (release func())
	// run, if set, makes the write a turn of the zone's writer: the
	// leader calls it instead of sending anything (Exclusive).
	run func()

	wake     chan struct{} // closed when done or promoted to lead
	lead     bool
	finished bool
	serials  serials
	err      error
}

// serials are the zone's serial before and after a write.
type serials struct {
	old, new       uint32
	hasOld, hasNew bool
}

func (s serials) into(res *ChangeResult) *ChangeResult {
	if s.hasOld {
		res.OldSerial, res.HasOldSerial = s.old, true
	}
	if s.hasNew {
		res.Serial, res.HasSerial = s.new, true
	}
	return res
}

// zoneWriter is the queue and SOA of one zone.
type zoneWriter struct {
	mu    sync.Mutex
	soa   *dns.SOA // last SOA seen (nil: none yet)
	queue []*write
	busy  bool       // a goroutine is leading: queued writes will be sent
	first sync.Mutex // held while the zone's SOA is read for the first time

	// index is the zone's CNAME owners at one SOA, nil when not known
	// (see cnameindex.go); size is about how many records the zone holds
	// (0: not known), for deciding whether to transfer it to build one.
	index *cnameIndex
	size  int
	// noIndexUntil: a transfer to build the index failed; until then no
	// batch tries again.
	noIndexUntil time.Time

	// known is the content of some of the zone's RRsets at one SOA
	// (known.go); total counts the records known over all zones.
	known *knownZone
	total *knownCount
	// noModelUntil: an IXFR showed changes the model does not predict
	// (a signed zone); until then the zone is not modelled.
	noModelUntil time.Time

	// Until these times, the zone's writes go unpinned (the pin never
	// matched) or pinned without the SOA add (the SOA add was refused);
	// then the module tries again, in case the zone's setup changed.
	unpinnedUntil, noSOAUntil time.Time

	// idle is when the writer last went idle (or was created); freed:
	// the writer left the Updater's map (idle.go, Forget), and a write
	// that finds it so joins the zone's current writer instead.
	idle  time.Time
	freed bool
}

// relearnAfter is how long a zone's writes do without the pin or the SOA
// add before trying them again.
const relearnAfter = 5 * time.Minute

// note remembers soa as the zone's SOA unless a newer one is known; force
// remembers it anyway (it was read from named).
func (zw *zoneWriter) note(soa *dns.SOA, force bool) {
	zw.mu.Lock()
	if force || zw.soa == nil || !serialLess(soa.Serial, zw.soa.Serial) {
		zw.soa = soa
	}
	zw.mu.Unlock()
}

// writer returns the zone's writer, creating it if none. A new writer
// starts from the zone's cached snapshot (its SOA, CNAME index and model's
// base), as if it had seen the read that cached it: reads create no
// writer (snapshot).
func (u *Updater) writer(zone string) *zoneWriter {
	u.wmu.Lock()
	w, ok := u.writers[zone]
	if !ok {
		w = &zoneWriter{total: &u.known, idle: time.Now()}
		u.writers[zone] = w
		u.armSweep()
	}
	u.wmu.Unlock()
	if !ok {
		if s := u.cache.current(zone); s != nil {
			w.note(s.SOA, false)
			w.offer(s)
		}
	}
	return w
}

// existingWriter returns the zone's writer, nil if it has none.
func (u *Updater) existingWriter(zone string) *zoneWriter {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	return u.writers[zone]
}

// cachedSOA returns the zone's last seen SOA, or nil.
func (u *Updater) cachedSOA(zone string) *dns.SOA {
	zw := u.writer(zone)
	zw.mu.Lock()
	defer zw.mu.Unlock()
	return zw.soa
}

// readSOA queries the zone's SOA and remembers it.
func (u *Updater) readSOA(ctx context.Context, zone string) (*dns.SOA, error) {
	return u.readSOAInto(ctx, zone, u.writer(zone))
}

// readSOAInto queries the zone's SOA and remembers it in zw.
func (u *Updater) readSOAInto(ctx context.Context, zone string, zw *zoneWriter) (*dns.SOA, error) {
	soa, err := u.dns.SOA(ctx, zone)
	if err != nil {
		return nil, err
	}
	zw.note(soa, true)
	return soa, nil
}

// records collects prerequisites (Answer) and updates (Ns) made with the
// dns.Msg update helpers, for a write.
func records() *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate(".")
	return m
}

// commit queues w on the zone's writer and returns when it was sent (or
// dropped from the queue because ctx ended first). The goroutine that
// finds the writer idle leads: it sends the queued writes, then hands the
// lead to the first write still queued.
func (u *Updater) commit(ctx context.Context, zone string, w *write) (serials, error) {
	if !u.dns.CanUpdate() {
		return serials{}, ErrNoUpdateKey
	}
	for _, rr := range w.update {
		w.size += dns.Len(rr)
	}
	w.wake = make(chan struct{})
	zw, lead, err := u.join(ctx, zone, w)
	if err != nil {
		return serials{}, err
	}
	if lead && w.lead && ctx.Err() != nil {
		// Promoted, but its client has left: it is not sent.
		zw.mu.Lock()
		zw.queue = slices.DeleteFunc(zw.queue, func(q *write) bool { return q == w })
		w.finished = true
		zw.mu.Unlock()
		zw.handOff()
		return serials{}, ctx.Err()
	}
	if lead {
		// The leader's client may leave; the writes it carries must not
		// fail with it (each exchange has the client's own timeout).
		u.lead(context.WithoutCancel(ctx), zone, zw, w)
	}
	return w.serials, w.err
}

// lead sends queued writes until self is done, then passes the lead on.
func (u *Updater) lead(ctx context.Context, zone string, zw *zoneWriter, self *write) {
	var batch []*write
	defer func() {
		// A panic while sending must not leave the zone's queue waiting
		// for a leader that is gone: the batch fails, the lead passes on.
		if p := recover(); p != nil {
			for _, w := range batch {
				if !w.finished {
					zw.finish(w, serials{}, fmt.Errorf("update of %s: internal error: %v", zone, p))
				}
			}
			zw.handOff()
			panic(p)
		}
	}()
	for {
		zw.mu.Lock()
		batch = zw.take()
		zw.mu.Unlock()
		u.run(ctx, zone, zw, batch)
		zw.mu.Lock()
		done := self.finished
		zw.mu.Unlock()
		if done {
			zw.handOff()
			return
		}
	}
}

// handOff passes the lead to the first queued write, or marks the writer
// idle.
func (zw *zoneWriter) handOff() {
	zw.mu.Lock()
	defer zw.mu.Unlock()
	if len(zw.queue) == 0 {
		zw.busy = false
		zw.idle = time.Now()
		return
	}
	next := zw.queue[0]
	next.lead = true
	close(next.wake)
}

// guardPrereqs are the prerequisites "no CNAME here" the writes' guards
// need in a message pinned to soa: none for the names the zone's index,
// when at soa, shows to hold no CNAME.
func (zw *zoneWriter) guardPrereqs(soa *dns.SOA, ws []*write) []dns.RR {
	var ix *cnameIndex
	if soa != nil {
		zw.mu.Lock()
		if zw.index != nil && dns.IsDuplicate(zw.index.soa, soa) {
			ix = zw.index
		}
		zw.mu.Unlock()
	}
	var out []dns.RR
	for _, w := range ws {
		for _, name := range w.guards {
			if ix == nil || ix.has(name) {
				out = append(out, &dns.ANY{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeCNAME, Class: dns.ClassNONE}})
			}
		}
	}
	return out
}

// run sends batch as one message; when named refuses a merged message,
// each write is sent alone so that only the culprit fails.
func (u *Updater) run(ctx context.Context, zone string, zw *zoneWriter, batch []*write) {
	if len(batch) == 1 && batch[0].run != nil {
		batch[0].run()
		zw.finish(batch[0], serials{}, nil)
		return
	}
	if len(batch) > 1 {
		s, err := u.send1(ctx, zone, zw, batch)
		var se *ServerError
		if err == nil || !errors.As(err, &se) {
			u.applied(ctx, zone, batch, s, err)
			for _, w := range batch {
				zw.finish(w, s, err)
			}
			return
		}
	}
	for _, w := range batch {
		s, err := u.send1(ctx, zone, zw, []*write{w})
		u.applied(ctx, zone, []*write{w}, s, err)
		zw.finish(w, s, err)
	}
}

// Exclusive runs fn as a turn of the zone's writer: no write of the zone
// from this Updater is in flight while it runs, and the writes' Applied
// callbacks before it have returned. It is how a reader of the zone's
// changes (the history's detection of changes made elsewhere) sees the
// zone between this process's writes.
func (u *Updater) Exclusive(ctx context.Context, zone string, fn func()) error {
	w := &write{run: fn, wake: make(chan struct{})}
	zw, lead, err := u.join(ctx, zone, w)
	if err != nil {
		return err
	}
	if lead {
		u.lead(context.WithoutCancel(ctx), zone, zw, w)
	}
	return nil
}

// enqueue queues w behind the zone's other writes and waits for its
// turn. lead reports whether w must lead: the queue was idle, or the
// leader before it promoted it (w.lead) without finishing it. When ctx
// ends while w still waits in the queue, w is withdrawn and ctx's error
// returned; once it is in flight, enqueue waits for its outcome. A freed
// writer takes no write: errFreed.
func (zw *zoneWriter) enqueue(ctx context.Context, w *write) (lead bool, err error) {
	zw.mu.Lock()
	if zw.freed {
		zw.mu.Unlock()
		return false, errFreed
	}
	zw.queue = append(zw.queue, w)
	lead = !zw.busy
	zw.busy = true
	zw.mu.Unlock()
	if lead {
		return true, nil
	}
	select {
	case <-w.wake:
	case <-ctx.Done():
		zw.mu.Lock()
		if !w.lead && !w.finished {
			zw.queue = slices.DeleteFunc(zw.queue, func(q *write) bool { return q == w })
			zw.mu.Unlock()
			return false, ctx.Err()
		}
		zw.mu.Unlock()
		<-w.wake // in flight: its outcome is known soon
	}
	zw.mu.Lock()
	defer zw.mu.Unlock()
	return !w.finished, nil
}

func (zw *zoneWriter) finish(w *write, s serials, err error) {
	zw.mu.Lock()
	w.serials, w.err, w.finished = s, err, true
	if !w.lead { // a promoted write's wake is closed, and it waits on nothing
		close(w.wake)
	}
	zw.mu.Unlock()
}

// send1 sends writes as one UPDATE message, pinned and with the next
// serial set, and sends it again while a concurrent change of the zone
// made the pin fail.
//
// It is one loop of about 110 lines on purpose: each pass decides the
// pin, the SOA add and the retry from what the previous answer taught
// (NXRRSET, REFUSED, a probe), and the state those decisions share (soa,
// probe, noSOA, attempt) reads best in one place.
func (u *Updater) send1(ctx context.Context, zone string, zw *zoneWriter, ws []*write) (serials, error) {
	ifSerial, exact := ws[0].ifSerial, ws[0].exact
	read := func() (*dns.SOA, error) { return u.readSOAInto(ctx, zone, zw) }
	probe := false // sending unpinned once to see whether the pin failed
	noSOA := false // sending without the SOA add once to see whether it was refused
	for attempt := 0; ; attempt++ {
		now := time.Now()
		zw.mu.Lock()
		soa := zw.soa
		unpinned := now.Before(zw.unpinnedUntil)
		noSOA = noSOA || now.Before(zw.noSOAUntil)
		zw.mu.Unlock()
		if exact != nil {
			soa = exact
		} else if ifSerial == nil && (unpinned || probe || attempt > retries) {
			soa = nil // give up pinning: send as is, read the serials
		} else if attempt > retries {
			return serials{}, &ConflictError{Message: "the zone keeps changing concurrently; try again"}
		} else if soa == nil || ifSerial != nil && soa.Serial != *ifSerial {
			var err error
			if soa, err = read(); err != nil {
				return serials{}, err
			}
		}
		if ifSerial != nil && (soa == nil || soa.Serial != *ifSerial) {
			cur := uint32(0)
			if soa != nil {
				cur = soa.Serial
			}
			return serials{}, &PreconditionError{Expected: *ifSerial, Current: cur}
		}
		var s serials
		m := newUpdate(zone)
		var next *dns.SOA
		switch {
		case soa == nil:
			// Unpinned: the serial before is the one read just now.
			if cur, err := read(); err == nil {
				s.old, s.hasOld = cur.Serial, true
			}
		case noSOA && ws[0].soa == nil:
			m.Used([]dns.RR{dns.Copy(soa)})
			s.old, s.hasOld = soa.Serial, true
		default:
			next = nextSOA(soa, ws[0].soa, ws[0].method, now)
			m.Used([]dns.RR{dns.Copy(soa)})
			m.Ns = append(m.Ns, next)
			s.old, s.hasOld = soa.Serial, true
		}
		for _, w := range ws {
			m.Answer = append(m.Answer, w.prereq...)
			m.Ns = append(m.Ns, w.update...)
		}
		m.Answer = append(m.Answer, zw.guardPrereqs(soa, ws)...)
		if u.beforeSend != nil {
			u.beforeSend(m)
		}
		err := u.send(ctx, zone, m)
		if err == nil {
			if next != nil {
				zw.mu.Lock()
				zw.soa = next
				zw.wrote(soa, next, m.Ns)
				zw.model(soa, next, ws)
				zw.mu.Unlock()
				s.new, s.hasNew = next.Serial, true
				return s, nil
			}
			zw.mu.Lock()
			zw.wrote(nil, nil, nil)
			if probe {
				// Only the pin had failed: named checks it against
				// another SOA than it serves (inline signing).
				zw.unpinnedUntil = now.Add(relearnAfter)
			}
			if noSOA && soa != nil && !now.Before(zw.noSOAUntil) {
				// Only the SOA add had been refused (an update-policy
				// that does not grant the key the SOA).
				zw.noSOAUntil = now.Add(relearnAfter)
			}
			zw.mu.Unlock()
			if cur, err := read(); err == nil {
				s.new, s.hasNew = cur.Serial, true
			}
			return s, nil
		}
		zw.mu.Lock()
		zw.wrote(nil, nil, nil) // applied or not, the index is not sure to hold
		zw.mu.Unlock()
		if next != nil && IsRcode(err, dns.RcodeRefused) && ws[0].soa == nil {
			// An update-policy may grant the key the records but not the
			// SOA: try once without setting the serial. A frozen zone or
			// a key without rights refuses that too.
			noSOA = true
			continue
		}
		if soa == nil || !IsRcode(err, dns.RcodeNXRrset) {
			return serials{}, err
		}
		// NXRRSET: the pin failed, or a prerequisite of the write did.
		cur, qerr := read()
		if qerr != nil || exact != nil {
			return serials{}, err
		}
		if ifSerial != nil && cur.Serial != *ifSerial {
			return serials{}, &PreconditionError{Expected: *ifSerial, Current: cur.Serial}
		}
		if dns.IsDuplicate(cur, soa) {
			// The zone is at the SOA pinned: a prerequisite of the
			// write failed, or named checks the pin against another SOA
			// than it serves (the unsigned side of an inline-signed
			// zone); sending once unpinned tells.
			if ifSerial != nil {
				return serials{}, err
			}
			probe = true
		}
	}
}

// nextSOA is the SOA record a message pinned to soa adds: soa with the
// serial method's next serial, or set (a write that sets the SOA) at
// soa's owner, with its own serial when that is above soa's and
// otherwise the method's next one (named ignores an SOA add whose serial
// is not higher, RFC 2136 section 3.4.2.2, so the SOA would not change).
func nextSOA(soa, set *dns.SOA, method SerialMethod, now time.Time) *dns.SOA {
	if set == nil {
		next := dns.Copy(soa).(*dns.SOA)
		next.Serial = method.Next(soa.Serial, now)
		return next
	}
	next := dns.Copy(set).(*dns.SOA)
	next.Hdr.Name, next.Hdr.Rrtype, next.Hdr.Class = soa.Hdr.Name, dns.TypeSOA, dns.ClassINET
	if !serialLess(soa.Serial, set.Serial) {
		next.Serial = method.Next(soa.Serial, now)
	}
	return next
}
