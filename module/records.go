package module

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

func stored(rr dns.RR) *storedRecord {
	h := rr.Header()
	t := dns.TypeToString[h.Rrtype]
	if t == "" {
		t = "TYPE" + strconv.Itoa(int(h.Rrtype))
	}
	return &storedRecord{Name: h.Name, Type: t, TTL: h.Ttl, Value: zonemodel.RDataText(rr)}
}

// recordTarget validates the zone and returns the backend; for writes it
// also requires a key to sign updates with.
func (h *Handler) recordTarget(w http.ResponseWriter, p params, write bool) (*backend, string, bool) {
	b, zone, ok := h.zoneTarget(w, p)
	if !ok {
		return nil, "", false
	}
	if write && !b.records.Client().CanUpdate() {
		writeError(w, http.StatusBadRequest, "%s", noKeyMessage(b))
		return nil, "", false
	}
	return b, zone, true
}

// ifMatch parses an If-Match header holding a zone serial ("123", 123 or
// W/"123"); "*" or no header means no condition.
func ifMatch(w http.ResponseWriter, r *http.Request) (*uint32, bool) {
	v := strings.TrimSpace(r.Header.Get("If-Match"))
	if v == "" || v == "*" {
		return nil, true
	}
	s := strings.Trim(strings.TrimPrefix(v, "W/"), `"`)
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		writeError(w, http.StatusBadRequest, "If-Match must be a zone serial as an ETag, e.g. \"2026112503\", got %q", v)
		return nil, false
	}
	serial := uint32(n)
	return &serial, true
}

func etag(serial uint32) string { return `"` + strconv.FormatUint(uint64(serial), 10) + `"` }

// handleAddRecord adds one record: POST /zones/{name}/records.
func (h *Handler) handleAddRecord(w http.ResponseWriter, r *http.Request, p params) {
	var req addRecordRequest
	b, zone, res, ok, err := h.recordWrite(w, r, p, &req, func(ctx context.Context, u *dnsupdate.Updater, zone string, opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return u.Add(ctx, zone, zonemodel.Record(req), opt)
	})
	if !ok {
		return
	}
	if err != nil {
		h.recordFailed(w, r, b, zone, "add", err)
		return
	}
	echo := map[string]any{"name": req.Name, "type": req.Type, "value": req.Value}
	h.writeStored(w, http.StatusCreated, "record added", "Record added to zone ", zone, echo, req.Priority, res)
}

// handleRemoveRecord deletes one record or an RRset: DELETE
// /zones/{name}/records.
func (h *Handler) handleRemoveRecord(w http.ResponseWriter, r *http.Request, p params) {
	var req removeRecordRequest
	b, zone, res, ok, err := h.recordWrite(w, r, p, &req, func(ctx context.Context, u *dnsupdate.Updater, zone string, opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return u.Remove(ctx, zone, dnsupdate.Removal(req), opt)
	})
	if !ok {
		return
	}
	if err != nil {
		h.recordFailed(w, r, b, zone, "remove", err)
		return
	}
	h.dnsLog.Info("record removed", zap.String("zone", zone), zap.String("name", req.Name), zap.String("type", req.Type),
		zap.Bool("whole_rrset", req.Value == nil), zap.Uint32("serial", res.Serial))
	echo := map[string]any{"name": req.Name, "type": req.Type, "value": req.Value}
	h.writeChange(w, http.StatusOK, "Record removed from zone "+zone, zone, echo, nil, res)
}

// handleUpdateRecord replaces one record's data: PUT /zones/{name}/records.
func (h *Handler) handleUpdateRecord(w http.ResponseWriter, r *http.Request, p params) {
	var req updateRecordRequest
	b, zone, res, ok, err := h.recordWrite(w, r, p, &req, func(ctx context.Context, u *dnsupdate.Updater, zone string, opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return u.Replace(ctx, zone, dnsupdate.Replacement(req), opt)
	})
	if !ok {
		return
	}
	if err != nil {
		if errors.Is(err, dnsupdate.ErrRecordNotFound) {
			writeError(w, http.StatusNotFound, "%s record %q with value %q not found in zone %s; nothing was changed", strings.ToUpper(req.Type), req.Name, req.CurrentValue, zone)
			return
		}
		h.recordFailed(w, r, b, zone, "update", err)
		return
	}
	echo := map[string]any{"name": req.Name, "type": req.Type, "currentValue": req.CurrentValue, "newValue": req.NewValue}
	h.writeStored(w, http.StatusOK, "record updated", "Record updated in zone ", zone, echo, req.Priority, res)
}

// writeStored logs and answers a change that stored one record (add,
// update): the echo of the request gets the stored TTL and the priority.
func (h *Handler) writeStored(w http.ResponseWriter, status int, logMsg, msg, zone string, echo map[string]any, priority *uint16, res *dnsupdate.ChangeResult) {
	rec := res.Records[0]
	h.dnsLog.Info(logMsg, zap.String("zone", zone), zap.String("name", rec.Header().Name),
		zap.String("type", dns.TypeToString[rec.Header().Rrtype]), zap.Uint32("serial", res.Serial))
	echo["ttl"] = rec.Header().Ttl
	if priority != nil {
		echo["priority"] = *priority
	}
	h.writeChange(w, status, msg+zone, zone, echo, rec, res)
}

// applyFunc applies a decoded record change through the zone's updater.
type applyFunc func(ctx context.Context, u *dnsupdate.Updater, zone string, opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error)

// recordWrite runs the steps every record change shares: the zone and a
// key to sign with, the body checked against the API specification's
// schema and decoded strictly into req, If-Match, then apply (settled
// as settle does). ok false means the request has been answered; err is
// apply's error, for the caller to answer.
func (h *Handler) recordWrite(w http.ResponseWriter, r *http.Request, p params, req any, apply applyFunc,
) (b *backend, zone string, res *dnsupdate.ChangeResult, ok bool, err error) {
	b, zone, ok = h.recordTarget(w, p, true)
	if !ok || !h.checkBody(w, r, "/api/v1/zones/{name}/records") || !decodeBody(w, r, req) || !h.allowRecords(w, r, zone, req) {
		return nil, "", nil, false, nil
	}
	cond, ok := ifMatch(w, r)
	if !ok {
		return nil, "", nil, false, nil
	}
	res, err = h.settle(r, b, zone, func() (*dnsupdate.ChangeResult, error) {
		return apply(r.Context(), b.records, zone, dnsupdate.WriteOptions{IfSerial: cond, SerialMethod: h.serialMethod})
	})
	return b, zone, res, true, err
}

// writeChange answers a single-record change.
func (h *Handler) writeChange(w http.ResponseWriter, status int, msg, zone string, echo map[string]any, rec dns.RR, res *dnsupdate.ChangeResult) {
	body := recordBody{Success: true, Message: msg, Details: recordDetails{Zone: zone, Record: echo}}
	if rec != nil {
		body.Record = stored(rec)
	}
	if res.HasSerial {
		s := res.Serial
		body.Serial = &s
		w.Header().Set("ETag", etag(s))
	}
	writeJSON(w, status, body)
}

// handleBatchRecords applies changes atomically: PATCH
// /zones/{name}/records.
func (h *Handler) handleBatchRecords(w http.ResponseWriter, r *http.Request, p params) {
	var req batchRequest
	b, zone, res, ok, err := h.recordWrite(w, r, p, &req, func(ctx context.Context, u *dnsupdate.Updater, zone string, opt dnsupdate.WriteOptions) (*dnsupdate.ChangeResult, error) {
		return u.Batch(ctx, zone, changesOf(req.Changes), opt)
	})
	if !ok {
		return
	}
	if err != nil {
		h.recordFailed(w, r, b, zone, "batch", err)
		return
	}
	h.dnsLog.Info("record batch applied", zap.String("zone", zone), zap.Int("changes", res.Changes),
		zap.Uint32("old_serial", res.OldSerial), zap.Uint32("serial", res.Serial))
	if res.HasSerial {
		w.Header().Set("ETag", etag(res.Serial))
	}
	writeJSON(w, http.StatusOK, batchBody{
		Success: true, Message: fmt.Sprintf("%d changes applied to zone %s", len(req.Changes), zone),
		Zone: zone, Changes: len(req.Changes), OldSerial: res.OldSerial, Serial: res.Serial,
	})
}

// handleListRecords lists RRsets read by AXFR: GET /zones/{name}/records.
func (h *Handler) handleListRecords(w http.ResponseWriter, r *http.Request, p params) {
	b, zone, ok := h.recordTarget(w, p, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	opt := dnsupdate.ListOptions{Limit: defaultListLimit, Cursor: q.Get("cursor")}
	var problems []string
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			problems = append(problems, fmt.Sprintf("limit: must be an integer from 1 to %d, got %q", maxListLimit, v))
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
		t, err := zonemodel.ParseRecordType(v)
		if err != nil && !strings.EqualFold(v, "SOA") {
			problems = append(problems, "type: "+err.Error())
		}
		if strings.EqualFold(v, "SOA") {
			t = dns.TypeSOA
		}
		opt.Type = t
	}
	if len(problems) > 0 {
		writeError(w, http.StatusBadRequest, "invalid query: %s", strings.Join(problems, "; "))
		return
	}
	snap, sets, next, err := b.records.List(r.Context(), zone, opt)
	if err != nil {
		h.recordFailed(w, r, b, zone, "read", err)
		return
	}
	sets = recordsInScope(grantOf(r), sets)
	tag := etag(snap.Serial())
	w.Header().Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeJSON(w, http.StatusOK, listRecordsBody{Zone: zone, Serial: snap.Serial(), RRsets: rrsetsOf(sets), Count: len(sets), NextCursor: next})
}

// handleExportZone answers the zone in master-file text: GET
// /zones/{name}/export.
func (h *Handler) handleExportZone(w http.ResponseWriter, r *http.Request, p params) {
	b, zone, ok := h.recordTarget(w, p, false)
	if !ok {
		return
	}
	if g := grantOf(r); g.RestrictsRecords() {
		h.forbid(w, r, &auth.Denied{Message: authOf(r).id.ID + " may not export zone " + zone + ": its scope limits record names or types; read GET /api/v1/zones/" + zone + "/records instead"})
		return
	}
	snap, err := b.records.Snapshot(r.Context(), zone)
	if err != nil {
		h.recordFailed(w, r, b, zone, "read", err)
		return
	}
	tag := etag(snap.Serial())
	w.Header().Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/dns; charset=utf-8")
	w.Header().Set("Content-Disposition", `inline; filename="`+zone+`.zone"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(snap.MasterFile())
}

// settle runs a change and, when named refuses it although zonestatus
// says the zone is a dynamic primary that is not frozen, runs it again a
// few times: right after `rndc thaw` named reloads the zone and refuses
// updates until the load completes. Only this error path asks rndc.
func (h *Handler) settle(r *http.Request, b *backend, zone string, f func() (*dnsupdate.ChangeResult, error)) (*dnsupdate.ChangeResult, error) {
	res, err := f()
	for i := 1; i <= 4 && dnsupdate.IsRcode(err, dns.RcodeRefused); i++ {
		st, serr := b.rndc.ZoneStatus(r.Context(), zone)
		if serr != nil || st.Frozen || !st.Dynamic || (st.Type != "primary" && st.Type != "master") {
			break
		}
		select {
		case <-r.Context().Done():
			return nil, err
		case <-time.After(time.Duration(i) * 50 * time.Millisecond):
		}
		res, err = f()
	}
	return res, err
}
