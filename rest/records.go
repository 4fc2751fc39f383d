package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// recordTarget returns the zone service of the view the request
// addresses (serviceFor); for writes it also requires a key to sign
// updates with. The zone name is the caller's, validated once
// (zoneName).
func (a *API) recordTarget(p Params, write bool) (recordService, error) {
	b, err := a.serviceFor(p)
	if err != nil {
		return nil, err
	}
	if write && !b.CanUpdate() {
		return nil, fail(http.StatusBadRequest, "%s", NoKeyMessage(b.UpdateKeyName()))
	}
	return b, nil
}

// recordService is what the record routes ask of the zone service of
// their view.
type recordService interface {
	frontend.UpdateKeys
	frontend.RecordAdder
	frontend.RecordRemover
	frontend.RecordReplacer
	frontend.ChangeApplier
	frontend.RecordPager
	frontend.ZoneFileReader
}

// ifMatch parses an If-Match header holding a zone serial ("123", 123 or
// W/"123"); "*" or no header means no condition.
func ifMatch(r *http.Request) (*uint32, error) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return nil, nil
	}
	s := strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return nil, fail(http.StatusBadRequest, "If-Match must be a zone serial as an ETag, e.g. \"2026112503\", got %q", v)
	}
	serial := uint32(n)
	return &serial, nil
}

// handleAddRecord adds one record: POST /zones/{name}/records.
func (a *API) handleAddRecord(w http.ResponseWriter, r *http.Request, p Params) error {
	var req addRecordRequest
	b, zone, res, applied, err := a.recordWrite(w, r, p, &req, func(ctx context.Context, svc recordService, zone string, cond *uint32) (*zonemodel.ChangeResult, error) {
		return svc.AddRecord(ctx, zone, zonemodel.Record(req), cond)
	})
	if !applied {
		return err
	}
	if err != nil {
		return a.recordFailure(b, zone, "add", err)
	}
	echo := map[string]any{"name": req.Name, "type": req.Type, "value": req.Value}
	a.writeStored(w, http.StatusCreated, "record added", "Record added to zone ", zone, echo, req.Priority, res)
	return nil
}

// handleRemoveRecord deletes one record or an RRset: DELETE
// /zones/{name}/records.
func (a *API) handleRemoveRecord(w http.ResponseWriter, r *http.Request, p Params) error {
	var req removeRecordRequest
	b, zone, res, applied, err := a.recordWrite(w, r, p, &req, func(ctx context.Context, svc recordService, zone string, cond *uint32) (*zonemodel.ChangeResult, error) {
		return svc.RemoveRecord(ctx, zone, zonemodel.Removal(req), cond)
	})
	if !applied {
		return err
	}
	if err != nil {
		return a.recordFailure(b, zone, "remove", err)
	}
	echo := map[string]any{"name": req.Name, "type": req.Type, "value": req.Value}
	a.writeChange(w, http.StatusOK, "Record removed from zone "+zone, zone, echo, nil, res)
	a.DNSLog.Info("record removed", zap.String("zone", zone), zap.String("name", req.Name), zap.String("type", req.Type),
		zap.Bool("whole_rrset", req.Value == nil), zap.Uint32("serial", res.Serial))
	return nil
}

// handleUpdateRecord replaces one record's data: PUT /zones/{name}/records.
func (a *API) handleUpdateRecord(w http.ResponseWriter, r *http.Request, p Params) error {
	var req updateRecordRequest
	b, zone, res, applied, err := a.recordWrite(w, r, p, &req, func(ctx context.Context, svc recordService, zone string, cond *uint32) (*zonemodel.ChangeResult, error) {
		return svc.ReplaceRecord(ctx, zone, zonemodel.Replacement(req), cond)
	})
	if !applied {
		return err
	}
	if err != nil {
		if errors.Is(err, zonemodel.ErrRecordNotFound) {
			return fail(http.StatusNotFound, "%s record %q with value %q not found in zone %s; nothing was changed", strings.ToUpper(req.Type), req.Name, req.CurrentValue, zone)
		}
		return a.recordFailure(b, zone, "update", err)
	}
	echo := map[string]any{"name": req.Name, "type": req.Type, "currentValue": req.CurrentValue, "newValue": req.NewValue}
	a.writeStored(w, http.StatusOK, "record updated", "Record updated in zone ", zone, echo, req.Priority, res)
	return nil
}

// writeStored logs and answers a change that stored one record (add,
// update): the echo of the request gets the stored TTL and the priority.
func (a *API) writeStored(w http.ResponseWriter, status int, logMsg, msg, zone string, echo map[string]any, priority *uint16, res *zonemodel.ChangeResult) {
	rec := storedRecord(res.StoredRecord(0))
	echo["ttl"] = rec.TTL
	if priority != nil {
		echo["priority"] = *priority
	}
	a.writeChange(w, status, msg+zone, zone, echo, &rec, res)
	a.DNSLog.Info(logMsg, zap.String("zone", zone), zap.String("name", rec.Name),
		zap.String("type", rec.Type), zap.Uint32("serial", res.Serial))
}

// applyFunc applies a decoded record change through the zone service,
// conditional on the zone's serial when cond is set.
type applyFunc func(ctx context.Context, svc recordService, zone string, cond *uint32) (*zonemodel.ChangeResult, error)

// recordWrite runs the steps every record change shares: the zone and a
// key to sign with, the body checked against the API specification's
// schema and decoded strictly into req, If-Match, then apply. applied
// false means a step before apply failed, with err its failure; else err
// is apply's error, for the caller to map.
func (a *API) recordWrite(w http.ResponseWriter, r *http.Request, p Params, req any, apply applyFunc,
) (b recordService, zone string, res *zonemodel.ChangeResult, applied bool, err error) {
	// Authorised completely (each record's name and type) before the
	// backend, whose first use reconciles with named.
	if zone, err = zoneName(p); err != nil {
		return nil, "", nil, false, err
	}
	if !a.Decode(w, r, p, req) || !a.AllowRecords(w, r, zone, req) {
		return nil, "", nil, false, errAnswered
	}
	if b, err = a.recordTarget(p, true); err != nil {
		return nil, "", nil, false, err
	}
	cond, err := ifMatch(r)
	if err != nil {
		return nil, "", nil, false, err
	}
	res, err = apply(r.Context(), b, zone, cond)
	return b, zone, res, true, err
}

// writeChange answers a single-record change.
func (a *API) writeChange(w http.ResponseWriter, status int, msg, zone string, echo map[string]any, rec *storedRecord, res *zonemodel.ChangeResult) {
	body := recordBody{Success: true, Message: msg, Details: recordDetails{Zone: zone, Record: echo}}
	body.Record = rec
	if res.HasSerial {
		s := res.Serial
		body.Serial = &s
		w.Header().Set("ETag", etag(s))
	}
	WriteJSON(w, status, body)
	answered(w)
}

// handleBatchRecords applies changes atomically: PATCH
// /zones/{name}/records.
func (a *API) handleBatchRecords(w http.ResponseWriter, r *http.Request, p Params) error {
	var req batchRequest
	b, zone, res, applied, err := a.recordWrite(w, r, p, &req, func(ctx context.Context, svc recordService, zone string, cond *uint32) (*zonemodel.ChangeResult, error) {
		return svc.ApplyChanges(ctx, zone, changesOf(req.Changes), cond)
	})
	if !applied {
		return err
	}
	if err != nil {
		return a.recordFailure(b, zone, "batch", err)
	}
	if res.HasSerial {
		w.Header().Set("ETag", etag(res.Serial))
	}
	WriteJSON(w, http.StatusOK, batchBody{
		Success: true, Message: fmt.Sprintf("%d changes applied to zone %s", len(req.Changes), zone),
		Zone: zone, Changes: len(req.Changes), OldSerial: res.OldSerial, Serial: res.Serial,
	})
	answered(w)
	a.DNSLog.Info("record batch applied", zap.String("zone", zone), zap.Int("changes", res.Changes),
		zap.Uint32("old_serial", res.OldSerial), zap.Uint32("serial", res.Serial))
	return nil
}

// handleListRecords lists RRsets read by AXFR: GET /zones/{name}/records.
func (a *API) handleListRecords(w http.ResponseWriter, r *http.Request, p Params) error {
	zone, err := zoneName(p)
	if err != nil {
		return err
	}
	b, err := a.recordTarget(p, false)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	opt := zonemodel.ListOptions{Limit: DefaultListLimit, Cursor: q.Get("cursor")}
	if g := a.grant(r); g.RestrictsRecords() {
		// Filtered before the page is cut: a page and its cursor only
		// ever come from RRsets the token may read.
		opt.Keep = func(name string, rrtype uint16) bool { return g.AllowsRecord(name, zonemodel.TypeString(rrtype)) }
	}
	var problems []string
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			problems = append(problems, fmt.Sprintf("limit: must be an integer from 1 to %d, got %q", MaxListLimit, v))
		}
		opt.Limit = n
	}
	if v := q.Get("name"); v != "" {
		n, err := zonemodel.NormalizeRecordName(v, zone)
		if err != nil {
			problems = append(problems, "name: "+err.Error())
		}
		opt.Name = n
	}
	if v := q.Get("type"); v != "" {
		t, err := zonemodel.ParseListType(v)
		if err != nil {
			problems = append(problems, "type: "+err.Error())
		}
		opt.Type = t
	}
	if len(problems) > 0 {
		return fail(http.StatusBadRequest, "invalid query: %s", ProblemList(problems))
	}
	serial, sets, next, err := b.RecordPage(r.Context(), zone, opt)
	if err != nil {
		return a.recordFailure(b, zone, "read", err)
	}
	sets = recordsInScope(a.grant(r), sets)
	tag := etag(serial)
	w.Header().Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	WriteJSON(w, http.StatusOK, listRecordsBody{Zone: zone, Serial: serial, RRsets: rrsetsOf(sets), Count: len(sets), NextCursor: next})
	return nil
}

// handleExportZone answers the zone in master-file text: GET
// /zones/{name}/export.
func (a *API) handleExportZone(w http.ResponseWriter, r *http.Request, p Params) error {
	zone, err := zoneName(p)
	if err != nil {
		return err
	}
	if g := a.grant(r); g.RestrictsRecords() {
		a.Forbid(w, r, &auth.Denied{Message: a.identity(r).ID + " may not export zone " + zone + ": its scope limits record names or types; read GET /api/v1/zones/" + zone + "/records instead"})
		return errAnswered
	}
	b, err := a.recordTarget(p, false)
	if err != nil {
		return err
	}
	serial, text, err := b.ZoneFile(r.Context(), zone)
	if err != nil {
		return a.recordFailure(b, zone, "read", err)
	}
	tag := etag(serial)
	w.Header().Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "text/dns; charset=utf-8")
	w.Header().Set("Content-Disposition", `inline; filename="`+zone+`.zone"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(text())
	return nil
}

// recordFailure logs and returns the answer to a failed record
// operation (RecordFailure).
func (a *API) recordFailure(svc frontend.UpdateKeys, zone, op string, err error) Failure {
	f := RecordFailure(svc, zone, op, err)
	LogFailure(a.DNSLog, f)
	return f
}
