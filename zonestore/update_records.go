package zonestore

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// maxUpdateSize is the largest UPDATE message sent: the TCP message limit
// less room for the TSIG record.
const maxUpdateSize = dns.MaxMsgSize - 512

// retries bounds how often a change whose prerequisites failed because
// the zone changed concurrently is prepared again.
const retries = 3

// Updater changes the records of zones served by named with RFC 2136
// UPDATE messages signed with TSIG, and reads zones by AXFR, caching each
// zone's content until its serial changes. It is safe for concurrent use.
//
// Every rule named would apply silently (CNAME beside other data, a second
// CNAME, deleting the apex NS RRset) is either a prerequisite of the UPDATE
// message, so named enforces it atomically, or checked against a snapshot
// of the zone whose serial is itself a prerequisite.
//
// Writes to a zone go through its writer (see commit.go): one UPDATE in
// flight per zone, concurrent single adds merged into one message, every
// message pinned to the last SOA seen and setting the next serial.
type Updater struct {
	dns   *DNSClient
	cache snapshotCache

	wmu     sync.Mutex
	writers map[string]*zoneWriter // zone -> its writer and last SOA

	transfers atomic.Int64

	beforeSend func(*dns.Msg) // tests only: sees each UPDATE before it is sent
}

// NewUpdater returns an Updater using the client.
func NewUpdater(c *DNSClient) *Updater {
	return &Updater{dns: c, writers: make(map[string]*zoneWriter)}
}

// Client returns the DNS client.
func (u *Updater) Client() *DNSClient { return u.dns }

// Transfers returns how many zone transfers the updater made.
func (u *Updater) Transfers() int64 { return u.transfers.Load() }

// Forget drops what the updater remembers of a zone (after it is deleted
// or re-created).
func (u *Updater) Forget(zone string) {
	u.cache.forget(zone)
	u.wmu.Lock()
	defer u.wmu.Unlock()
	zw, ok := u.writers[zone]
	if !ok {
		return
	}
	zw.mu.Lock()
	defer zw.mu.Unlock()
	if !zw.busy {
		delete(u.writers, zone)
		return
	}
	// A write is in flight: its leader keeps this writer, which forgets.
	zw.soa, zw.unpinnedUntil, zw.noSOAUntil = nil, time.Time{}, time.Time{}
}

// WriteOptions tunes a change.
type WriteOptions struct {
	// IfSerial, when set, makes the change conditional on the zone's SOA
	// serial (If-Match): a *PreconditionError when it differs, checked
	// atomically by an UPDATE prerequisite on the SOA record.
	IfSerial *uint32
	// SerialMethod is how the change sets the zone's next serial, as
	// named's serial-update-method would (default increment).
	SerialMethod SerialMethod
}

// ChangeResult describes an applied change.
type ChangeResult struct {
	// Zone is the canonical zone name.
	Zone string
	// Records are the records added, as stored (absolute owner, TTL).
	Records []dns.RR
	// OldSerial is the serial the change was applied to, when known
	// (batches and conditional changes).
	OldSerial uint32
	// HasOldSerial tells whether OldSerial is known.
	HasOldSerial bool
	// Serial is the zone's serial right after the change (a concurrent
	// change may already be included).
	Serial uint32
	// HasSerial tells whether Serial could be read.
	HasSerial bool
	// Changes is the number of changes (records added or removed, RRsets
	// deleted) in the UPDATE message.
	Changes int
}

// defaultTTL is the zone's default TTL: its SOA record's TTL (the $TTL of
// zones created through the API), read once and refreshed whenever the
// SOA is read.
func (u *Updater) defaultTTL(ctx context.Context, zone string) (uint32, error) {
	if soa := u.cachedSOA(zone); soa != nil {
		return soa.Hdr.Ttl, nil
	}
	// One read per zone: a burst of first writes waits for it.
	zw := u.writer(zone)
	zw.first.Lock()
	defer zw.first.Unlock()
	if soa := u.cachedSOA(zone); soa != nil {
		return soa.Hdr.Ttl, nil
	}
	soa, err := u.readSOA(ctx, zone)
	if err != nil {
		return 0, err
	}
	return soa.Hdr.Ttl, nil
}

func newUpdate(zone string) *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate(zone + ".")
	m.Compress = true
	return m
}

// send signs and sends an UPDATE message.
func (u *Updater) send(ctx context.Context, zone string, m *dns.Msg) error {
	if !u.dns.CanUpdate() {
		return ErrNoUpdateKey
	}
	if n := m.Len(); n > maxUpdateSize {
		return &ValidationError{Problems: []Problem{{Field: "changes", Message: fmt.Sprintf(
			"the changes make an UPDATE message of %d bytes, over the %d-byte limit of one DNS message: split them into several batches", n, maxUpdateSize)}}}
	}
	return u.dns.Update(ctx, zone, m)
}

// finish reads the serial after a change.
func (u *Updater) finish(ctx context.Context, zone string, res *ChangeResult) *ChangeResult {
	if soa, err := u.readSOA(ctx, zone); err == nil {
		res.Serial, res.HasSerial = soa.Serial, true
	}
	return res
}

// Add adds one record. Adding a record that exists succeeds and changes no
// record, as in BIND; the serial still moves (every write sets it).
func (u *Updater) Add(ctx context.Context, zone string, req *AddRecordRequest, opt WriteOptions) (*ChangeResult, error) {
	if isSOAType(req.Type) {
		return nil, soaConflict("type")
	}
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	rr, err := ParseRecord(zone, ttl, req.Name, req.Type, req.Value, req.TTL, req.Priority, "", "value")
	if err != nil {
		return nil, err
	}
	h := rr.Header()
	if h.Rrtype == dns.TypeCNAME && h.Name == zone+"." {
		return nil, &ConflictError{Field: "name", Message: "a CNAME is not allowed at the zone apex: it cannot coexist with the SOA and NS records (RFC 1034 §3.6.2)"}
	}
	res := &ChangeResult{Zone: zone, Records: []dns.RR{rr}, Changes: 1}
	r := records()
	if h.Rrtype == dns.TypeCNAME {
		r.NameNotUsed([]dns.RR{rr})
	} else if !coexistsWithCNAME[h.Rrtype] {
		r.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: h.Name, Rrtype: dns.TypeCNAME}}})
	}
	r.Insert([]dns.RR{dns.Copy(rr)})
	// A CNAME add must not share a message: its prerequisite ("name not
	// in use") holds only before the other adds.
	w := &write{prereq: r.Answer, update: r.Ns, ifSerial: opt.IfSerial, method: opt.SerialMethod, merge: opt.IfSerial == nil && h.Rrtype != dns.TypeCNAME}
	s, err := u.commit(ctx, zone, w)
	if err == nil {
		return s.into(res), nil
	}
	if IsRcode(err, dns.RcodeYXRrset) || IsRcode(err, dns.RcodeYXDomain) {
		cerr, same := u.explainAddConflict(ctx, zone, rr)
		if same {
			return u.finish(ctx, zone, res), nil
		}
		return nil, cerr
	}
	return nil, u.explainRefused(ctx, zone, rr, "value", err)
}

// explainRefused turns named's refusals that have a cause a client can act
// on into a *ConflictError: REFUSED of an added MX whose target is in the
// zone but has no address (named's check-integrity), and SERVFAIL of an
// add to an RRset at named's max-records-per-type (100 by default since
// BIND 9.18.28). Other errors are returned as they are.
func (u *Updater) explainRefused(ctx context.Context, zone string, rr dns.RR, field string, err error) error {
	if IsRcode(err, dns.RcodeServerFailure) {
		h := rr.Header()
		set, qerr := u.dns.Query(ctx, zone, h.Name, h.Rrtype)
		if qerr != nil || len(set) < 100 {
			return err
		}
		return &ConflictError{Field: field, Message: fmt.Sprintf("the %s RRset at %s already holds %d records and named refuses more (its max-records-per-type, 100 by default); remove some first, or raise the limit in named.conf", dns.TypeToString[h.Rrtype], h.Name, len(set))}
	}
	mx, ok := rr.(*dns.MX)
	if !ok || !IsRcode(err, dns.RcodeRefused) || !inZone(strings.ToLower(mx.Mx), zone+".") {
		return err
	}
	a, qerr := u.dns.Query(ctx, zone, mx.Mx, dns.TypeA)
	aaaa, qerr2 := u.dns.Query(ctx, zone, mx.Mx, dns.TypeAAAA)
	if qerr != nil || qerr2 != nil || len(a)+len(aaaa) > 0 {
		return err
	}
	return mxConflict(field, mx)
}

func mxConflict(field string, mx *dns.MX) *ConflictError {
	return &ConflictError{Field: field, Message: fmt.Sprintf("the MX target %s is inside the zone but has no A or AAAA record, and named refuses such an MX (check-integrity): add the address first", mx.Mx)}
}

// explainAddConflict reads the data at an add's name after named refused
// its CNAME prerequisite. same is true when the name holds exactly the
// CNAME being added (nothing to change).
func (u *Updater) explainAddConflict(ctx context.Context, zone string, rr dns.RR) (error, bool) {
	name := rr.Header().Name
	rrs, err := u.dns.Query(ctx, zone, name, dns.TypeANY)
	if err != nil {
		return &ConflictError{Field: "name", Message: fmt.Sprintf("%s: named refused the change because of a CNAME conflict (RFC 1034 §3.6.2)", name)}, false
	}
	d := nameData{}
	for _, x := range rrs {
		d[x.Header().Rrtype] = append(d[x.Header().Rrtype], x)
	}
	if rr.Header().Rrtype == dns.TypeCNAME && len(d.otherTypes()) == 0 && len(d[dns.TypeCNAME]) == 1 && dns.IsDuplicate(d[dns.TypeCNAME][0], rr) {
		return nil, true
	}
	if err := checkAdd(d, rr, "name"); err != nil {
		return err, false
	}
	return &ConflictError{Field: "name", Message: fmt.Sprintf("%s: named refused the change because of a CNAME conflict (RFC 1034 §3.6.2)", name)}, false
}

// Remove deletes one record (Value set) or the RRset of name and type.
// Deleting what does not exist succeeds and changes no record, as in BIND;
// the serial still moves (every write sets it).
func (u *Updater) Remove(ctx context.Context, zone string, req *RemoveRecordRequest, opt WriteOptions) (*ChangeResult, error) {
	if isSOAType(req.Type) {
		return nil, soaConflict("type")
	}
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	origin := zone + "."
	var rr dns.RR
	var name string
	var t uint16
	if req.Value == nil {
		ve := &ValidationError{}
		name, t = parseNameType(zone, req.Name, req.Type, "", ve)
		if req.Priority != nil {
			ve.add("priority", "is used only with value")
		}
		if len(ve.Problems) > 0 {
			return nil, ve
		}
		if name == origin && t == dns.TypeNS {
			return nil, &ConflictError{Field: "type", Message: "deleting every NS record at the zone apex would leave the zone without name servers (named ignores such a deletion); remove single records, or replace the set in a batch"}
		}
	} else {
		var err error
		rr, err = ParseRecord(zone, 0, req.Name, req.Type, *req.Value, nil, req.Priority, "", "value")
		if err != nil {
			return nil, err
		}
		name, t = rr.Header().Name, rr.Header().Rrtype
	}
	res := &ChangeResult{Zone: zone, Changes: 1}
	for attempt := 0; ; attempt++ {
		r := records()
		w := &write{ifSerial: opt.IfSerial, method: opt.SerialMethod}
		if rr == nil {
			r.RemoveRRset([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: name, Rrtype: t}}})
		} else {
			if name == origin && t == dns.TypeNS {
				set, err := u.dns.Query(ctx, zone, origin, dns.TypeNS)
				if err != nil {
					return nil, err
				}
				if containsRR(set, rr) {
					if len(set) == 1 {
						return nil, &ConflictError{Field: "value", Message: "this is the zone's last NS record: removing it would leave the zone without name servers (named ignores such a deletion)"}
					}
					r.Used(copyRRs(set))
				}
			}
			r.Remove([]dns.RR{dns.Copy(rr)})
		}
		w.prereq, w.update = r.Answer, r.Ns
		s, err := u.commit(ctx, zone, w)
		if err == nil {
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) && attempt < retries {
			continue // the apex NS set changed meanwhile
		}
		return nil, err
	}
}

// Replace replaces one record's data in one UPDATE message whose
// prerequisite is the RRset as read, holding the current value: it fails
// with ErrRecordNotFound when the current value does not exist.
func (u *Updater) Replace(ctx context.Context, zone string, req *UpdateRecordRequest, opt WriteOptions) (*ChangeResult, error) {
	if isSOAType(req.Type) {
		return nil, soaConflict("type")
	}
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	ve := &ValidationError{}
	cur := parseRecordInto(zone, ttl, req.Name, req.Type, req.CurrentValue, nil, req.Priority, "", "currentValue", ve)
	next := parseRecordInto(zone, ttl, req.Name, req.Type, req.NewValue, req.TTL, req.Priority, "", "newValue", ve)
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	name, t := cur.Header().Name, cur.Header().Rrtype
	res := &ChangeResult{Zone: zone, Records: []dns.RR{next}, Changes: 2}
	for attempt := 0; ; attempt++ {
		var set []dns.RR
		if attempt == 0 {
			// A query is cheap; it cannot tell a wildcard's synthesised
			// answer from real data, so retries read the zone itself.
			if set, err = u.dns.Query(ctx, zone, name, t); err != nil {
				return nil, err
			}
		} else {
			snap, err := u.Snapshot(ctx, zone)
			if err != nil {
				return nil, err
			}
			for _, rr := range snap.At(name) {
				if rr.Header().Rrtype == t {
					set = append(set, rr)
				}
			}
		}
		if !containsRR(set, cur) {
			return nil, ErrRecordNotFound
		}
		r := records()
		r.Used(copyRRs(set))
		r.Remove([]dns.RR{dns.Copy(cur)})
		r.Insert([]dns.RR{dns.Copy(next)})
		s, err := u.commit(ctx, zone, &write{prereq: r.Answer, update: r.Ns, ifSerial: opt.IfSerial, method: opt.SerialMethod})
		if err == nil {
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) && attempt < retries {
			continue
		}
		if IsRcode(err, dns.RcodeNXRrset) {
			return nil, &ConflictError{Message: "the RRset keeps changing concurrently; try again"}
		}
		return nil, u.explainRefused(ctx, zone, next, "newValue", err)
	}
}

// Batch applies the changes in order as one UPDATE message: all or
// nothing, one serial bump. The changes are checked against a snapshot of
// the zone (CNAME rules, apex NS), and the message's prerequisite is that
// snapshot's SOA, so a concurrent change makes named refuse it; the batch
// is then prepared again, or, with IfSerial, fails with a
// *PreconditionError.
func (u *Updater) Batch(ctx context.Context, zone string, req *BatchRequest, opt WriteOptions) (*ChangeResult, error) {
	if !u.dns.CanUpdate() {
		return nil, ErrNoUpdateKey
	}
	ttl, err := u.defaultTTL(ctx, zone)
	if err != nil {
		return nil, err
	}
	changes, err := parseBatch(zone, ttl, req)
	if err != nil {
		return nil, err
	}
	if res, err, done := u.simpleBatch(ctx, zone, changes, opt); done {
		return res, err
	}
	origin := zone + "."
	for attempt := 0; ; attempt++ {
		snap, err := u.Snapshot(ctx, zone)
		if err != nil {
			return nil, err
		}
		if opt.IfSerial != nil && snap.Serial() != *opt.IfSerial {
			return nil, &PreconditionError{Expected: *opt.IfSerial, Current: snap.Serial()}
		}
		sim := &simulation{snap: snap, names: map[string]nameData{}}
		for _, c := range changes {
			if err := sim.apply(c); err != nil {
				return nil, err
			}
		}
		apexNS := false
		if d, ok := sim.names[origin]; ok {
			if _, touched := touchedType(changes, origin, dns.TypeNS); touched {
				apexNS = true
				if len(d[dns.TypeNS]) == 0 {
					f, _ := touchedType(changes, origin, dns.TypeNS)
					return nil, &ConflictError{Field: f, Message: "the changes leave the zone apex without NS records (named would ignore the deletion)"}
				}
			}
		}

		m := records()
		res := &ChangeResult{Zone: zone, OldSerial: snap.Serial(), HasOldSerial: true}
		for _, c := range changes {
			if apexNS && c.name == origin && c.rrtype == dns.TypeNS {
				continue
			}
			switch c.op {
			case OpAdd:
				m.Insert([]dns.RR{dns.Copy(c.rr)})
				res.Records = append(res.Records, c.rr)
			case OpRemove:
				m.Remove([]dns.RR{dns.Copy(c.rr)})
			case OpDelete:
				m.RemoveRRset([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: c.rrtype}}})
			}
			res.Changes++
		}
		if apexNS {
			// named ignores deleting the apex NS RRset and removing its
			// last record, so the new set is added before the old
			// records are removed one by one.
			final := sim.names[origin][dns.TypeNS]
			m.Insert(copyRRs(final))
			for _, rr := range snap.At(origin) {
				if rr.Header().Rrtype == dns.TypeNS && !containsRR(final, rr) {
					m.Remove([]dns.RR{dns.Copy(rr)})
					res.Changes++
				}
			}
			res.Changes += len(final)
		}
		s, err := u.commit(ctx, zone, &write{update: m.Ns, exact: snap.SOA, method: opt.SerialMethod})
		if err == nil {
			return s.into(res), nil
		}
		if IsRcode(err, dns.RcodeNXRrset) {
			if opt.IfSerial != nil {
				cur := uint32(0)
				if soa, serr := u.dns.SOA(ctx, zone); serr == nil {
					cur = soa.Serial
				}
				return nil, &PreconditionError{Expected: *opt.IfSerial, Current: cur}
			}
			if attempt < retries {
				continue
			}
			return nil, &ConflictError{Message: "the zone keeps changing concurrently; try again"}
		}
		return nil, err
	}
}

// touchedType returns the field of the first change of name and type.
func touchedType(changes []change, name string, t uint16) (string, bool) {
	for _, c := range changes {
		if c.name == name && c.rrtype == t {
			return c.field, true
		}
	}
	return "", false
}

// ListOptions filters and pages a record listing.
type ListOptions struct {
	// Name keeps only RRsets owned by this absolute name, when not empty.
	Name string
	// Type keeps only RRsets of this type, when not 0.
	Type uint16
	// Limit is the page size (at least 1).
	Limit int
	// Cursor is the NextCursor of the previous page, or "".
	Cursor string
}

// List returns one page of the zone's RRsets from a snapshot, and the
// cursor of the next page ("" on the last page).
func (u *Updater) List(ctx context.Context, zone string, opt ListOptions) (*Snapshot, []RRset, string, error) {
	after := ""
	if opt.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(opt.Cursor)
		if err != nil || len(b) == 0 {
			return nil, nil, "", &ValidationError{Problems: []Problem{{Field: "cursor", Message: "is not a cursor this API returned"}}}
		}
		after = string(b)
	}
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		return nil, nil, "", err
	}
	limit := max(opt.Limit, 1)
	var page []RRset
	next := ""
	for _, s := range snap.RRsets() {
		if after != "" && s.key <= after {
			continue
		}
		if opt.Name != "" && !strings.EqualFold(s.Name, opt.Name) {
			continue
		}
		if opt.Type != 0 && s.rrtype != opt.Type {
			continue
		}
		if len(page) == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].key))
			break
		}
		page = append(page, s)
	}
	return snap, page, next, nil
}

// simpleBatch applies a batch whose rules named can check by itself: no
// CNAME added, no MX added, no apex NS touched. Each add of other data
// gets the prerequisite "no CNAME at that name" unless an earlier change
// of the batch deletes that CNAME, so the batch costs one UPDATE and no
// zone transfer. done is false for other batches, and when named refused
// a prerequisite: the snapshot path then finds which change conflicts.
func (u *Updater) simpleBatch(ctx context.Context, zone string, changes []change, opt WriteOptions) (*ChangeResult, error, bool) {
	origin := zone + "."
	for _, c := range changes {
		if c.rrtype == dns.TypeCNAME && c.op == OpAdd || c.rrtype == dns.TypeMX && c.op == OpAdd ||
			c.name == origin && c.rrtype == dns.TypeNS {
			return nil, nil, false
		}
	}
	m := records()
	res := &ChangeResult{Zone: zone}
	cnameGone := map[string]bool{}
	guarded := map[string]bool{}
	var body []dns.RR
	for _, c := range changes {
		switch c.op {
		case OpAdd:
			if !cnameGone[c.name] && !guarded[c.name] && !coexistsWithCNAME[c.rrtype] {
				guarded[c.name] = true
				m.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: dns.TypeCNAME}}})
			}
			rr := dns.Copy(c.rr)
			rr.Header().Class = dns.ClassINET
			body = append(body, rr)
			res.Records = append(res.Records, c.rr)
		case OpRemove:
			rr := dns.Copy(c.rr)
			rr.Header().Class, rr.Header().Ttl = dns.ClassNONE, 0
			body = append(body, rr)
		case OpDelete:
			if c.rrtype == dns.TypeCNAME {
				cnameGone[c.name] = true
			}
			body = append(body, &dns.ANY{Hdr: dns.RR_Header{Name: c.name, Rrtype: c.rrtype, Class: dns.ClassANY}})
		}
		res.Changes++
	}
	s, err := u.commit(ctx, zone, &write{prereq: m.Answer, update: body, ifSerial: opt.IfSerial, method: opt.SerialMethod})
	if err == nil {
		return s.into(res), nil, true
	}
	if IsRcode(err, dns.RcodeYXRrset) {
		return nil, nil, false
	}
	return nil, err, true
}
