package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zoneapi/caddy-zoneapi/frontend"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// sideChange is what one RRset of a PATCH changes in the zone's side file
// (comments, disabled records).
type sideChange struct {
	name, typ, op string
	// records tells that the RRset's records were given whole (REPLACE);
	// disabled are those given disabled (REPLACE, EXTEND) or the one a
	// PRUNE or an enabled EXTEND names.
	records  bool
	disabled []string
	content  string
	ttl      *uint32
	// comments, when not nil, replace the RRset's comments.
	comments *[]Comment
}

func (c *sideChange) key() string { return rrsetKey(c.name, c.typ) }

// splitPatch separates a PATCH's RRsets into what named serves, for
// PlanPatch (no comments, no disabled records; a comments-only change of
// the SOA left out, as named keeps the SOA), and what the side file
// keeps. An RRset whose name or type PlanPatch will refuse is passed on
// as given, for PlanPatch to answer. Disabled records are checked as
// PlanPatch checks records; record content is checked by the zone
// service only for the records named gets.
func splitPatch(zone string, sets []RRset) ([]RRset, []sideChange, error) {
	out := make([]RRset, 0, len(sets))
	var side []sideChange
	for _, s := range sets {
		name, err := CanonicalName(s.Name)
		typ := strings.ToUpper(strings.TrimSpace(s.Type))
		if err != nil || typ == "" || s.ChangeType == nil {
			out = append(out, s)
			continue
		}
		if err := checkComments(s.Comments); err != nil {
			return nil, nil, err
		}
		label := name + " IN " + typ
		ct := strings.ToUpper(*s.ChangeType)
		sc := sideChange{name: name, typ: typ, op: ct, ttl: s.TTL}
		if s.Comments != nil {
			cs := []Comment{}
			for _, c := range s.Comments {
				if c.Content != "" || c.Account != "" {
					cs = append(cs, c)
				}
			}
			sc.comments = &cs
		}
		recs := trimmedRecords(s.Records)
		var enabled []Record
		if recs != nil {
			enabled = []Record{}
		}
		dup := map[string]bool{}
		for _, r := range recs {
			if r.Disabled {
				if err := checkContent(name, typ, r.Content); err != nil {
					return nil, nil, err
				}
				if err := checkHostname(label, typ, r.Content); err != nil {
					return nil, nil, err
				}
				if r.Content == "" {
					return nil, nil, inputErr("Record %s/%s '%s': Not in expected format (parsed as '%s')", name, typ, r.Content, r.Content)
				}
				sc.disabled = append(sc.disabled, r.Content)
			} else {
				enabled = append(enabled, Record{Content: r.Content})
			}
			if ct == ChangeReplace {
				if k := contentKey(r.Content); dup[k] {
					return nil, nil, errDuplicate(label, r.Content)
				} else {
					dup[k] = true
				}
			}
		}
		named := s
		named.Comments, named.Records = nil, enabled
		switch ct {
		case ChangeReplace:
			sc.records = recs != nil
			if recs == nil && (typ == "SOA" || typ == "DNSKEY") {
				// Comments only, on an RRset BIND keeps: nothing for
				// named, but the name must be the zone's.
				if !InZone(name, zone) {
					return nil, nil, inputErr("RRset %s: Name is out of zone", label)
				}
				side = append(side, sc)
				continue
			}
			if singletonTypes[typ] && len(recs) > 1 {
				return nil, nil, errOnlyOne(label)
			}
			if recs != nil && len(enabled) == 0 && len(sc.disabled) > 0 && (typ == "SOA" || typ == "DNSKEY") {
				return nil, nil, inputErr("RRset %s: disabling the %s record is not supported: BIND serves a zone only with it", label, typ)
			}
		case ChangeExtend, ChangePrune:
			if len(recs) == 1 {
				sc.content = recs[0].Content
				if ct == ChangeExtend && recs[0].Disabled {
					if !InZone(name, zone) {
						return nil, nil, inputErr("RRset %s: Name is out of zone", label)
					}
					side = append(side, sc)
					continue // kept, not served
				}
				named.Records = []Record{{Content: recs[0].Content}}
				sc.disabled = nil
			}
		}
		out = append(out, named)
		if sc.comments != nil || len(sc.disabled) > 0 || ct == ChangeDelete || ct == ChangeReplace && sc.records || ct == ChangeExtend || ct == ChangePrune {
			side = append(side, sc)
		}
	}
	return out, side, nil
}

// applySide makes the side changes to d, after named took the UPDATE.
func applySide(d *zoneData, side []sideChange, now time.Time) {
	for _, c := range side {
		k := c.key()
		switch c.op {
		case ChangeDelete:
			delete(d.RRsets, k)
			continue
		case ChangeReplace:
			if c.records {
				rs := d.rrset(c.name, c.typ)
				rs.Disabled = slices.Clone(c.disabled)
				if c.ttl != nil {
					rs.TTL = *c.ttl
				}
			}
		case ChangeExtend:
			if len(c.disabled) > 0 {
				rs := d.rrset(c.name, c.typ)
				if !slices.ContainsFunc(rs.Disabled, func(v string) bool { return contentKey(v) == contentKey(c.content) }) {
					rs.Disabled = append(rs.Disabled, c.content)
				}
				if c.ttl != nil {
					rs.TTL = *c.ttl
				}
			} else if rs := d.RRsets[k]; rs != nil {
				rs.Disabled = slices.DeleteFunc(rs.Disabled, func(v string) bool { return contentKey(v) == contentKey(c.content) })
			}
		case ChangePrune:
			if rs := d.RRsets[k]; rs != nil {
				rs.Disabled = slices.DeleteFunc(rs.Disabled, func(v string) bool { return contentKey(v) == contentKey(c.content) })
			}
		}
		if c.comments != nil {
			d.rrset(c.name, c.typ).Comments = nowComments(*c.comments, now)
		}
	}
	d.prune()
}

// pendingData is what the side file holds while the UPDATE is sent: the
// disabled records of before and after (named's records shown enabled
// all the same, see mergeData), the comments of before; so that a crash
// during the UPDATE leaves no disabled record lost.
func pendingData(before, after *zoneData) (*zoneData, bool) {
	p := before.clone()
	grew := false
	for k, rs := range after.RRsets {
		for _, v := range rs.Disabled {
			old := p.RRsets[k]
			if old != nil && slices.ContainsFunc(old.Disabled, func(o string) bool { return contentKey(o) == contentKey(v) }) {
				continue
			}
			prs := p.rrset(rs.Name, rs.Type)
			prs.Disabled = append(prs.Disabled, v)
			if prs.TTL == 0 {
				prs.TTL = rs.TTL
			}
			grew = true
		}
	}
	return p, grew
}

// sideTouched reports whether the PATCH's side changes need the side
// file: comments or disabled records given, or an RRset the zone's side
// file keeps something of changed (read without its lock: a PATCH that
// needs it takes the lock and reads it again). What the side file keeps
// RRsets of is asked of sideKeys, which reads the file only when it
// changed.
func (a *API) sideTouched(zone string, side []sideChange) bool {
	for _, c := range side {
		if c.comments != nil || len(c.disabled) > 0 {
			return true
		}
	}
	sf := a.sideFiles()
	if sf == nil || len(side) == 0 {
		return false
	}
	keys, err := a.sideKeys.get(sf, zone)
	if err != nil {
		return true // the locked path reports it
	}
	for _, c := range side {
		if keys[c.key()] {
			return true
		}
	}
	return false
}

// sideKeyCache keeps, per zone, the RRsets (rrsetKey) the zone's side
// file keeps comments or disabled records of, with the stamp of the
// version of the file they were read from, so that a PATCH of a zone
// whose side file did not change since (most: a create's kind or account
// is written once) costs one stat, not a read and a parse. The stamp
// is checked on every use, so that a change by any writer (another API,
// another process over the same directory, a reload) is seen: an entry
// is used only while the file is the very version it was read from
// (zonemodel.SideFileStamp.Matches), and never for a version written
// too recently to tell apart by its times.
type sideKeyCache struct {
	mu sync.Mutex
	m  map[string]sideKeyEntry
}

type sideKeyEntry struct {
	stamp zonemodel.SideFileStamp
	keys  map[string]bool
}

// get is the RRsets the zone's side file keeps something of (nil when
// it has none).
func (c *sideKeyCache) get(sf frontend.SideFiles, zone string) (map[string]bool, error) {
	now, ok, err := sf.StatSideFile(zone, zonemodel.SideKindPowerDNS)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e, have := c.m[zone]
	if !ok && have {
		delete(c.m, zone)
	}
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	if have && e.stamp.Matches(now) {
		return e.keys, nil
	}
	b, stamp, ok, err := sf.ReadSideFileStamped(zone, zonemodel.SideKindPowerDNS)
	if err != nil || !ok {
		return nil, err
	}
	var d zoneData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for k, rs := range d.RRsets {
		if rs != nil {
			keys[k] = true
		}
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]sideKeyEntry{}
	}
	c.m[zone] = sideKeyEntry{stamp: stamp, keys: keys}
	c.mu.Unlock()
	return keys, nil
}

// patchWithData applies a PATCH that changes the zone's side file, the
// side file around the UPDATE as withData keeps it, and answers it.
func (a *API) patchWithData(w http.ResponseWriter, r *http.Request, name string, plan *Plan, side []sideChange) {
	z, ok := a.zone(w, r, name)
	if !ok {
		return
	}
	if a.sideFiles() == nil {
		WriteError(w, http.StatusUnprocessableEntity, "comments and disabled records are not kept: this server has no zone directory for them")
		return
	}
	var (
		old, serial uint32
		apply       func() error
	)
	if len(plan.Changes) > 0 {
		apply = func() (err error) {
			old, serial, err = a.Service.Apply(r.Context(), name, plan.Changes)
			return err
		}
	}
	change := func(d *zoneData) { applySide(d, side, time.Now()) }
	if err := a.withData(r.Context(), z, change, apply); err != nil {
		a.fail(w, err, plan.Explain, false)
		return
	}
	if apply != nil {
		setSerialHeaders(w, old, serial)
	}
	w.WriteHeader(http.StatusNoContent)
}

// sideOnlySets are the RRsets of side changes PlanPatch did not see (a
// comments-only change of the SOA, a disabled EXTEND), for the scope
// check.
func sideOnlySets(plan *Plan, side []sideChange) []RRset {
	in := map[string]bool{}
	for _, s := range plan.Sets {
		in[rrsetKey(s.Name, s.Type)] = true
	}
	var out []RRset
	for _, c := range side {
		if !in[c.key()] {
			in[c.key()] = true
			out = append(out, RRset{Name: c.name, Type: c.typ})
		}
	}
	return out
}

// withData makes a change of the zone's side file around apply (the
// UPDATE of a PUT with rrsets; nil when there is none), under the side
// file's lock: when the change keeps records disabled that apply takes
// out of named, the side file first holds the pending data (pendingData),
// then apply runs, then the side file holds the changed data, or the old
// again when apply failed (the pending data when its outcome is
// unknown). Without side files apply alone runs.
func (a *API) withData(ctx context.Context, z *ZoneInfo, change func(d *zoneData), apply func() error) error {
	sf := a.sideFiles()
	if sf == nil {
		if apply != nil {
			return apply()
		}
		return nil
	}
	unlock, err := sf.LockSideFile(ctx, z.Name, zonemodel.SideKindPowerDNS)
	if err != nil {
		return err
	}
	defer unlock()
	before, err := readData(sf, z)
	if err != nil {
		return err
	}
	after := before.clone()
	change(after)
	// Encoded (and its size checked) before named is changed: a side file
	// refused after the UPDATE would leave named changed and the answer
	// an error.
	afterData, err := encodeData(sf, z, after)
	if err != nil {
		return err
	}
	if apply != nil {
		p, grew := pendingData(before, after)
		if grew {
			if err := saveData(sf, z, p); err != nil {
				return err
			}
		}
		if err := apply(); err != nil {
			// An UPDATE named may have applied (its outcome unknown)
			// keeps the pending data, as a crash during it does: put
			// back as before, the records it took out of named would
			// be neither served nor kept.
			if grew && !errors.Is(err, zonemodel.ErrOutcomeUnknown) {
				_ = saveData(sf, z, before.clone())
			}
			return err
		}
	}
	return writeData(sf, z, afterData)
}
