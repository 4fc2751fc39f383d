package zoneservice

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The record operations send RFC 2136 UPDATE messages, signed with the
// Updater's key, and read zones by AXFR. Their errors: a
// *zonemodel.ValidationError for a change that is not valid, a
// *dnsupdate.ConflictError for one DNS rules refuse, a
// *dnsupdate.PreconditionError when ifSerial is not the zone's serial,
// dnsupdate.ErrRecordNotFound (ReplaceRecord), dnsupdate.ErrNoUpdateKey;
// an *Error of kind ErrOutcomeUnknown when named did not answer a change
// (it may have applied it), or, when named refused the operation, of kind
// ErrNotFound, ErrFrozen, ErrNotPrimary, ErrUpdateRefused,
// ErrTransferRefused, ErrNotZone, ErrServerFailure, ErrSignature or
// ErrRcode, explained by what zonestatus then reports of the zone
// (ErrControl with command "zonestatus" when that fails too). Other
// errors are the exchange's own.

// Records is the record concern of a zone service: a zone's record
// changes (each one RFC 2136 UPDATE, atomic, applied by the zone's writer
// after the changes already queued, its entry in the change history
// before it returns) and reads (a zone transfer, or a serial-keyed cache
// of one). It holds only what that concern needs: the updater (the
// zones' writers and reader), the change history and the view its
// entries name, the update key, named's control channel to ask why a
// change was refused (zonestatus, showzone), the catalog zone (whose
// records change only with the zones it lists), the zone directory's
// master files (the history's gap fill reads a zone's file) and the zone
// cache's hook. It reaches nothing of the zone lifecycle (the index, the
// intents, the locks) nor of the recovery.
//
// A Service hands out its Records (Service.Records), built from its
// fields at each call: a Records keeps no state of its own (the writers
// are the updater's, the entries the history's), so it is cheap and
// always follows the Service's configuration. Its API is in zonemodel
// terms. Errors as above; no change is idempotent by itself (a retry
// after an unknown outcome reads the zone first).
type Records struct {
	updater      *dnsupdate.Updater
	serialMethod dnsupdate.SerialMethod
	history      *history.Log
	view         string
	updateKey    string
	// control, when set, is asked why named refused a change and
	// whether a change refused right after a thaw may be tried again.
	control recordControl
	// hasCatalog tells whether the service keeps a catalog zone, and
	// catalogZone names it.
	hasCatalog  bool
	catalogZone string
	// files reads a zone's master file (nil: none).
	files zoneFileReader
	// changed is told of each zone a change was sent for (the zone
	// cache drops the zone's status); nil: none.
	changed func(zone string)
	// timeout bounds the capture's wait for other updaters' changes in
	// flight (the control channel's timeout, Service.Timeout).
	timeout time.Duration
	logger  *zap.Logger
}

// recordControl is what the record concern asks of named's control
// channel.
type recordControl interface {
	ZoneStatus(ctx context.Context, zone string) (*rndc.ZoneStatus, error)
	ShowZoneStatement(ctx context.Context, zone string) (*rndc.ZoneStatement, error)
}

// zoneFileReader reads a zone's master file in the zone directory (Files'
// ReadFile).
type zoneFileReader interface {
	ReadFile(zone string, max int64) ([]byte, bool)
}

// Records is the service's record concern (see Records), built from its
// fields.
func (s *Service) Records() *Records {
	r := &Records{updater: s.Updater, serialMethod: s.SerialMethod, history: s.History, view: s.View,
		updateKey: s.UpdateKey, logger: s.Logger, changed: s.recordChanged, timeout: s.timeout()}
	if s.Control != nil {
		r.control = s.Control
	}
	if s.Store != nil {
		r.files = s.Store
	}
	if s.Catalog != nil {
		r.hasCatalog, r.catalogZone = true, s.Catalog.Zone
	}
	return r
}

// recordChanged is the zone cache's hook of a record change: the zone's
// zonestatus part is dropped.
func (s *Service) recordChanged(zone string) { s.statusChanged(zone, false) }

// recordChanged tells the zone cache that a change of the zone was sent.
func (r *Records) recordChanged(zone string) {
	if r.changed != nil {
		r.changed(zone)
	}
}

// isCatalogZone reports whether zone is the catalog zone (as
// Service.IsCatalogZone).
func (r *Records) isCatalogZone(zone string) bool {
	return r.hasCatalog && strings.EqualFold(strings.TrimSuffix(zone, "."), strings.TrimSuffix(r.catalogZone, "."))
}

func (r *Records) log() *zap.Logger {
	if r.logger == nil {
		return zap.NewNop()
	}
	return r.logger
}

// CanUpdate reports whether the service can sign record changes: it has
// an updater whose key has its secret.
func (r *Records) CanUpdate() bool {
	return r.updater != nil && r.updater.Client().CanUpdate()
}

// AddRecord adds rec to the zone. ifSerial, if set, is the serial the
// zone must have (else *dnsupdate.PreconditionError).
func (r *Records) AddRecord(ctx context.Context, zone string, rec zonemodel.Record, ifSerial *uint32) (*zonemodel.ChangeResult, error) {
	return r.change(ctx, zone, "add", ifSerial, func(opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return r.updater.Add(ctx, zone, rec, opt)
	})
}

// RemoveRecord removes one record, or an RRset when rm names no value.
func (r *Records) RemoveRecord(ctx context.Context, zone string, rm zonemodel.Removal, ifSerial *uint32) (*zonemodel.ChangeResult, error) {
	return r.change(ctx, zone, "remove", ifSerial, func(opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return r.updater.Remove(ctx, zone, rm, opt)
	})
}

// ReplaceRecord replaces one record's data (dnsupdate.ErrRecordNotFound
// when the record is not there).
func (r *Records) ReplaceRecord(ctx context.Context, zone string, rp zonemodel.Replacement, ifSerial *uint32) (*zonemodel.ChangeResult, error) {
	return r.change(ctx, zone, "update", ifSerial, func(opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return r.updater.Replace(ctx, zone, rp, opt)
	})
}

// ApplyChanges applies changes in order as one UPDATE message: all or
// nothing, one serial bump.
func (r *Records) ApplyChanges(ctx context.Context, zone string, changes []zonemodel.Change, ifSerial *uint32) (*zonemodel.ChangeResult, error) {
	return r.change(ctx, zone, "batch", ifSerial, func(opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return r.updater.Batch(ctx, zone, changes, opt)
	})
}

// ApplyChangesSettingSOA is ApplyChanges for a front end whose changes
// may set the zone's SOA (PowerDNS's PATCH or PUT of the SOA RRset): a
// replace of the apex SOA RRset with one record is not refused but sets
// that SOA in the same UPDATE as the other changes, all or nothing, with
// its serial when that is above the zone's and otherwise the serial
// method's next one (named takes no SOA whose serial is not higher), so
// that the result's serial is the one named serves. Any other change of
// the SOA is refused as by ApplyChanges.
func (r *Records) ApplyChangesSettingSOA(ctx context.Context, zone string, changes []zonemodel.Change, ifSerial *uint32) (*zonemodel.ChangeResult, error) {
	rest, soa, err := splitSOA(zone, changes)
	if err != nil || soa == nil {
		if err != nil {
			return nil, err
		}
		return r.ApplyChanges(ctx, zone, changes, ifSerial)
	}
	return r.change(ctx, zone, "batch", ifSerial, func(opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		opt.SOA = soa
		return r.updater.Batch(ctx, zone, rest, opt)
	})
}

// splitSOA takes out of changes the one that sets the SOA: a replace of
// the apex SOA RRset with one record, parsed. Other SOA changes are left
// for the batch, which refuses them.
func splitSOA(zone string, changes []zonemodel.Change) ([]zonemodel.Change, *dns.SOA, error) {
	idx := -1
	for i, c := range changes {
		if !zonemodel.IsSOAType(c.Type) || c.Op != zonemodel.OpReplace || len(c.Values) != 1 {
			continue
		}
		if n, err := zonemodel.NormalizeRecordName(c.Name, zone); err != nil || !strings.EqualFold(n, zonemodel.Origin(zone)) || idx >= 0 {
			continue
		}
		idx = i
	}
	if idx < 0 {
		return changes, nil, nil
	}
	c := changes[idx]
	ttl := uint32(0)
	if c.TTL != nil {
		ttl = *c.TTL
	}
	field := "changes[" + strconv.Itoa(idx) + "]"
	rr, err := dns.NewRR(dns.Fqdn(zone) + " " + strconv.FormatUint(uint64(ttl), 10) + " IN SOA " + c.Values[0])
	soa, ok := rr.(*dns.SOA)
	if err != nil || !ok {
		ve := &zonemodel.ValidationError{}
		ve.Add(field+".values[0]", "is not SOA data (MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM)")
		return nil, nil, ve
	}
	if c.TTL == nil {
		soa.Hdr.Ttl = soa.Minttl
	}
	rest := make([]zonemodel.Change, 0, len(changes)-1)
	rest = append(append(rest, changes[:idx]...), changes[idx+1:]...)
	return rest, soa, nil
}

// applyUpdate sends one UPDATE of the zone made of RFC 2136
// prerequisites and updates as they are (for front ends that speak in
// RRs, such as the external-dns webhook). A prerequisite that fails is a
// *dnsupdate.ServerError whose rcode says which (NXRRSET, YXRRSET,
// NXDOMAIN, YXDOMAIN), returned as it is.
func (r *Records) applyUpdate(ctx context.Context, zone string, prereq, update []dns.RR) (*dnsupdate.ChangeResult, error) {
	if err := r.notCatalog(zone); err != nil {
		return nil, err
	}
	if r.updater == nil {
		return nil, dnsupdate.ErrNoUpdateKey
	}
	defer r.writing(zone)() // for the catch-up (inflight.go)
	defer r.recordChanged(zone)
	opt, recorded := r.recording(ctx, zone, dnsupdate.WriteOptions{SerialMethod: r.serialMethod})
	res, err := r.updater.Apply(ctx, zone, prereq, update, opt)
	if err != nil {
		return nil, err
	}
	return res, recorded()
}

// listRecords lists the zone's RRsets, read by AXFR (from a serial-keyed
// cache), one page at a time, with the snapshot they come from.
func (r *Records) listRecords(ctx context.Context, zone string, opt dnsupdate.ListOptions) (*dnsupdate.Snapshot, []dnsupdate.RRset, string, error) {
	if r.updater == nil {
		return nil, nil, "", dnsupdate.ErrNoUpdateKey
	}
	snap, sets, next, err := r.updater.List(ctx, zone, opt)
	if err != nil {
		return nil, nil, "", r.recordErr(ctx, zone, "read", err)
	}
	return snap, sets, next, nil
}

// snapshot reads the whole zone by AXFR (from a serial-keyed cache): its
// records, serial and master-file text (export).
func (r *Records) snapshot(ctx context.Context, zone string) (*dnsupdate.Snapshot, error) {
	if r.updater == nil {
		return nil, dnsupdate.ErrNoUpdateKey
	}
	snap, err := r.updater.Snapshot(ctx, zone)
	if err != nil {
		return nil, r.recordErr(ctx, zone, "read", err)
	}
	return snap, nil
}

// change runs a record change and, when named refuses it although
// zonestatus (when the service has a control channel) says the zone is a
// dynamic primary that is not frozen, runs it again a few times: right
// after `rndc thaw` named reloads the zone and refuses updates until the
// load completes. Once a change sent after a status showing the zone
// loaded is refused again with the zone's load time unchanged
// (zonestatus's "last loaded"), no load was under way: the refusal is
// named's answer to the change (an update-policy, its check-integrity),
// given after one more try, not after four and half a second. Only this
// error path asks named over the control channel.
func (r *Records) change(ctx context.Context, zone, op string, ifSerial *uint32, f func(dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error)) (*dnsupdate.ChangeResult, error) {
	if err := r.notCatalog(zone); err != nil {
		return nil, err
	}
	if r.updater == nil {
		return nil, dnsupdate.ErrNoUpdateKey
	}
	defer r.writing(zone)() // for the catch-up (inflight.go)
	defer r.recordChanged(zone)
	opt, recorded := r.recording(ctx, zone, dnsupdate.WriteOptions{IfSerial: ifSerial, SerialMethod: r.serialMethod})
	res, err := f(opt)
	loaded := "" // the load time of the status the last try followed
	for i := 1; i <= 4 && r.control != nil && dnsupdate.IsRcode(err, dns.RcodeRefused); i++ {
		st, serr := r.control.ZoneStatus(ctx, zone)
		if serr != nil || st.Frozen || !st.Dynamic || (st.Type != "primary" && st.Type != "master") || loaded != "" && st.LastLoaded == loaded {
			break
		}
		loaded = st.LastLoaded
		select {
		case <-ctx.Done():
			return nil, r.recordErr(ctx, zone, op, err)
		case <-time.After(time.Duration(i) * 50 * time.Millisecond):
		}
		res, err = f(opt)
	}
	if err != nil {
		return nil, r.recordErr(ctx, zone, op, err)
	}
	return res, recorded()
}

// recordErr classifies a record operation's failure (see above).
func (r *Records) recordErr(ctx context.Context, zone, op string, err error) error {
	var se *dnsupdate.ServerError
	switch {
	case errors.As(err, &se):
		return r.refused(ctx, zone, op, se)
	case op != "read" && dnsupdate.OutcomeUnknown(err):
		e := newErr(ErrOutcomeUnknown, zone, "", "", err)
		e.Op = op
		return e
	}
	return err
}

// refused explains an error rcode from named: where the zone's state
// can say why, it asks named for it.
func (r *Records) refused(ctx context.Context, zone, op string, se *dnsupdate.ServerError) error {
	e := &Error{Zone: zone, Op: op, Rcode: dnsupdate.RcodeName(se.Rcode), Err: se}
	if se.TSIGError != 0 {
		e.Kind = ErrSignature
		return e
	}
	switch se.Rcode {
	case dns.RcodeRefused, dns.RcodeNotAuth, dns.RcodeNotZone, dns.RcodeServerFailure:
	default:
		e.Kind = ErrRcode
		return e
	}
	if r.control == nil { // no control channel to ask why
		e.Kind = rcodeKind(se.Rcode, op)
		return e
	}
	st, err := r.control.ZoneStatus(ctx, zone)
	switch {
	case err != nil && rndc.IsNotFound(err):
		e.Kind = ErrNotFound
		return e
	case err != nil:
		e.Kind, e.Command, e.Err = ErrControl, "zonestatus", err
		return e
	case st.Frozen:
		e.Kind = ErrFrozen
	case st.Type != "" && st.Type != "primary" && st.Type != "master":
		e.Kind, e.ZoneType = ErrNotPrimary, st.Type
	default:
		e.Kind = rcodeKind(se.Rcode, op)
		if e.Kind == ErrUpdateRefused && r.updateKey != "" {
			if zc, err := r.control.ShowZoneStatement(ctx, zone); err == nil {
				e.KeyAdmitted = admitsKey(zc, r.updateKey)
			}
		}
	}
	return e
}

// admitsKey reports whether the zone's allow-update grants the key.
func admitsKey(zc *rndc.ZoneStatement, key string) bool {
	v, ok := zc.Get("allow-update")
	if !ok {
		return false
	}
	elems, _ := v.Elems()
	for _, e := range elems {
		if isKeyGrant(e) && len(e) == 2 && strings.TrimSuffix(e[1].Text, ".") == strings.TrimSuffix(key, ".") {
			return true
		}
	}
	return false
}

// rcodeKind is the kind of a refusal the zone's state does not explain:
// by named's rcode and the operation.
func rcodeKind(rcode int, op string) error {
	switch {
	case rcode == dns.RcodeServerFailure:
		return ErrServerFailure
	case op == "read":
		return ErrTransferRefused
	case rcode == dns.RcodeNotZone:
		return ErrNotZone
	default:
		return ErrUpdateRefused
	}
}

// notCatalog refuses record changes to the catalog zone (ErrCatalogZone):
// its records are the service's list of zones, which a change by hand
// would make every catalog consumer follow.
func (r *Records) notCatalog(zone string) error {
	if r.isCatalogZone(zone) {
		return newErr(ErrCatalogZone, zone, "", "zone "+strings.TrimSuffix(zone, ".")+" is the catalog zone this API keeps: its records change only with the zones it lists", nil)
	}
	return nil
}

// UpdateKeyName is the update key's name (Service.UpdateKey), which a
// front end's answer to a refused change may name; "" when none is.
func (r *Records) UpdateKeyName() string { return r.updateKey }

// UpdateKeyName is the configured update key's name (UpdateKey), "" when
// none is.
func (s *Service) UpdateKeyName() string { return s.UpdateKey }

// SigningKeyName is the name of the key the service's updater signs
// with, "" without an updater or a key.
func (s *Service) SigningKeyName() string {
	if s.Updater == nil {
		return ""
	}
	return s.Updater.Client().KeyName()
}

// ViewName is the service's view (View), "" without views.
func (s *Service) ViewName() string { return s.View }
