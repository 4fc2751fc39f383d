package module

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// This file is the one place where errors become HTTP answers; handlers
// decode, call, and hand a failure to one of these. The statuses:
//
//	400 Bad Request        invalid input (zonemodel.ValidationError, zoneservice.ErrInvalid);
//	                       record changes the zone cannot take (no update key,
//	                       a secondary zone, no allow-update for the key, NOTZONE)
//	404 Not Found          a zone named or the index does not know
//	409 Conflict           the zone exists; state conflicts named reports (frozen,
//	                       not dynamic, ...); DNS rules (dnsupdate.ConflictError)
//	412 Precondition Failed  If-Match serial differs (dnsupdate.PreconditionError)
//	500 Internal Server Error  local failures (index, files, keys)
//	500 "Bad Gateway"      a control command or DNS exchange named failed
//	503 Service Unavailable  the zone's lock could not be had in time
//	504 Gateway Timeout    named did not answer: the outcome is unknown
//	507 Insufficient Storage  the zone directory's disk is full
//
// Request-shape errors (bad JSON, 413, 415, query parameters) are
// answered where the request is read (httpjson.go, the handlers).

// backendOr500 returns the backend or answers 500 when it cannot be set up
// (unreadable key file, missing zone directory).
//
// The first time in the process it also reconciles the zone directory
// with named (zoneservice.Service.ReconcileAtStart) and the catalog with
// the index (catalogFirstRequest). Handlers call it only once the request is
// authorised completely (its route, zone and records), so that nothing an
// unauthorised request does reaches named or the disk.
func (a *restAPI) backendOr500(w http.ResponseWriter) (*backend, bool) {
	b, err := a.backend()
	if err != nil {
		a.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return nil, false
	}
	b.svc.ReconcileAtStart(context.Background())
	a.catalogFirstRequest(context.Background())
	return b, true
}

// conflictErrs are BIND's short error texts that describe the zone's state
// rather than a failure of BIND: they answer 409.
var conflictErrs = map[string]string{
	"already exists": "",
	"already frozen": "",
	"not dynamic":    "the zone does not accept dynamic updates, so it cannot be frozen",
	"dynamic zone":   "the zone accepts dynamic updates: freeze it before reloading (thaw reloads the file too)",
	"not frozen":     "",
}

// commandFailed answers a failed control command: 504 when it was sent
// and not answered (the outcome is unknown), 404 when BIND does not know
// the zone, 409 for state conflicts, else 500 "Bad Gateway" naming
// the command and BIND's text (the rndc client's Observe hook has
// logged the failure). modzone and retransfer refusals have their own
// answers.
func (a *restAPI) commandFailed(w http.ResponseWriter, command, zone string, err error) {
	var re *rndc.Error
	switch {
	case rndc.OutcomeUnknown(err):
		outcomeUnknown(w, command, zone, err)
	case command == "modzone" && errors.As(err, &re) && rndc.IsNotFound(err):
		// The zone exists (showzone said so): what is missing is
		// something the change names.
		writeError(w, http.StatusBadRequest, "named refused the change: rndc modzone %s: %s (a dnssec-policy or key the change names does not exist?); the zone is unchanged", zone, describe(re))
	case command == "modzone" && errors.As(err, &re):
		writeError(w, http.StatusConflict, "named refused the change: rndc modzone %s: %s; the zone is unchanged", zone, describe(re))
	case command == "retransfer" && rndc.IsWrongZoneType(err) && errors.As(err, &re):
		writeError(w, http.StatusConflict, "rndc retransfer %s: %s: only secondary zones transfer from primaries", zone, describe(re))
	case rndc.IsNotFound(err) && zone != "" && command != "addzone":
		// For addzone, "not found" names something the zone refers to
		// (a dnssec-policy, a key), not the zone.
		writeError(w, http.StatusNotFound, "zone %s not found", zone)
	case errors.As(err, &re):
		if hint, ok := conflictErrs[re.Err]; ok {
			msg := "rndc " + command + " " + zone + ": " + re.Err
			if hint != "" {
				msg += ": " + hint
			}
			writeError(w, http.StatusConflict, "%s", msg)
			return
		}
		writeBadGateway(w, "rndc %s failed: %s", command, describe(re))
	case errors.Is(err, rndc.ErrAuth):
		writeBadGateway(w, "rndc %s failed: named rejected the rndc key (check the key name, algorithm and secret)", command)
	default:
		writeBadGateway(w, "rndc %s failed: %v", command, err)
	}
}

// learnOutcome says, per control command, how a client learns the
// outcome of one that named did not answer.
var learnOutcome = map[string]string{
	"modzone":    "GET /api/v1/zones/%s shows the configuration named has (config); sending the same PATCH again is safe",
	"freeze":     "GET /api/v1/zones/%s/status tells whether the zone is frozen; freezing again is safe",
	"thaw":       "GET /api/v1/zones/%s/status tells whether the zone is frozen; thawing again is safe",
	"reload":     "GET /api/v1/zones/%s/status shows the serial named serves; reloading again is safe",
	"notify":     "GET /api/v1/zones/%s tells the zone's state; sending the notify again is safe",
	"retransfer": "GET /api/v1/zones/%s/status shows the serial named serves; asking again is safe",
}

// outcomeUnknown answers 504 for a control command that was sent but not
// answered: named may have executed it, nothing was rolled back, and the
// answer says how to learn the outcome.
func outcomeUnknown(w http.ResponseWriter, command, zone string, err error) {
	how := "sending the same request again is safe"
	if zone != "" {
		how = "GET /api/v1/zones/%s tells the zone's state; sending the same request again is safe"
		if h, ok := learnOutcome[command]; ok {
			how = h
		}
		how = fmt.Sprintf(how, zone)
	}
	target := command
	if zone != "" {
		target += " " + zone
	}
	writeError(w, http.StatusGatewayTimeout, "rndc %s: named did not answer, so whether it executed the command is unknown. "+
		"The outcome is unknown: nothing was rolled back. %s. Cause: %v", target, how, err)
}

// describe formats BIND's short error and its longer text.
func describe(re *rndc.Error) string { return zoneservice.Describe(re) }

// lifecycleFailed answers a failed lifecycle operation.
func (a *restAPI) lifecycleFailed(w http.ResponseWriter, zone string, err error) {
	var le *zoneservice.Error
	if !errors.As(err, &le) {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	if le.Zone != "" {
		zone = le.Zone
	}
	switch {
	case errors.Is(err, zoneservice.ErrExists):
		writeError(w, http.StatusConflict, "%s", le.Msg)
	case errors.Is(err, zoneservice.ErrCatalogZone):
		writeError(w, http.StatusConflict, "zone %s is the catalog zone this API keeps; remove the catalog option first", zone)
	case errors.Is(err, zoneservice.ErrNotFound):
		writeError(w, http.StatusNotFound, "zone %s not found", zone)
	case errors.Is(err, zoneservice.ErrOutcomeUnknown):
		writeError(w, http.StatusGatewayTimeout, "%s. The outcome is unknown: nothing was rolled back. "+
			"GET /api/v1/zones/%s tells whether the zone exists; sending the same request again completes or repeats it "+
			"once named answers (POST /api/v1/server/reconcile settles every unfinished operation). Cause: %v",
			le.Msg, zone, le.Err)
	case errors.Is(err, zoneservice.ErrControl):
		a.commandFailed(w, le.Command, zone, le.Err)
	case errors.Is(err, zoneservice.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid zone: %v", le.Err)
	case errors.Is(err, zoneservice.ErrBusy):
		writeError(w, http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zoneservice.ErrStorage) && zonestore.IsNoSpace(err):
		writeError(w, http.StatusInsufficientStorage, "%v; nothing was changed", le)
	default:
		writeError(w, http.StatusInternalServerError, "%v", le)
	}
}

// serviceFailed answers a failed zone operation of the zone service
// other than create and delete (lifecycleFailed): a control command's
// failure as commandFailed does for that command.
func (a *restAPI) serviceFailed(w http.ResponseWriter, zone string, err error) {
	var le *zoneservice.Error
	switch {
	case !errors.As(err, &le):
		writeError(w, http.StatusInternalServerError, "%v", err)
	case le.Command != "":
		a.commandFailed(w, le.Command, zone, le.Err)
	case errors.Is(err, zoneservice.ErrBusy):
		writeError(w, http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zoneservice.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid change: %v", le.Err)
	case errors.Is(err, zoneservice.ErrControl):
		writeBadGateway(w, "%v", le)
	default:
		writeError(w, http.StatusInternalServerError, "%v", le)
	}
}

// noKeyMessage explains how to enable record changes.
func noKeyMessage(b *backend) string {
	if b.updateKey == "" {
		return "record changes are disabled: no TSIG update key is configured; add `update_key_file <path>` (or `update_key <name> <algorithm> <secret>`) to the zone_api block, and allow-update { key \"<name>\"; } to the zone (zones created through this API get it)"
	}
	return fmt.Sprintf("record changes are disabled: the update key %q is configured by name only, so zones accept updates signed with it but this module cannot sign them; give its secret with `update_key_file <path>` or `update_key %s <algorithm> <secret>`", b.updateKey, b.updateKey)
}

// recordFailed maps a failed record operation to a response. Where named
// answered with an error, the zone service has read the zone's state to
// say why: unknown zone 404, frozen 409, secondary or no allow-update for
// the module's key 400.
func (a *restAPI) recordFailed(w http.ResponseWriter, b *backend, zone, op string, err error) {
	var (
		ve *zonemodel.ValidationError
		ce *dnsupdate.ConflictError
		pe *dnsupdate.PreconditionError
		le *zoneservice.Error
	)
	switch {
	case errors.As(err, &ve):
		writeError(w, http.StatusBadRequest, "invalid record: %s", ve.Error())
	case errors.As(err, &ce):
		writeError(w, http.StatusConflict, "%s; nothing was changed", ce.Error())
	case errors.As(err, &pe):
		w.Header().Set("ETag", etag(pe.Current))
		writeError(w, http.StatusPreconditionFailed, "zone %s: %s; nothing was changed", zone, pe.Error())
	case errors.Is(err, dnsupdate.ErrNoUpdateKey):
		writeError(w, http.StatusBadRequest, "%s", noKeyMessage(b))
	case errors.As(err, &le) && errors.Is(err, zoneservice.ErrCatalogZone):
		writeError(w, http.StatusConflict, "%s; nothing was changed", le.Msg)
	case errors.As(err, &le) && errors.Is(err, zoneservice.ErrOutcomeUnknown):
		a.dnsLog.Error("record operation outcome unknown", zap.String("zone", zone), zap.String("operation", op), zap.Error(le.Err))
		writeError(w, http.StatusGatewayTimeout, "record %s in zone %s: named did not answer the update (%v), so whether it was applied is unknown; "+
			"nothing was rolled back. GET /api/v1/zones/%s/records tells", op, zone, le.Err, zone)
	case errors.As(err, &le) && le.Rcode != "":
		a.serverRefused(w, b, zone, op, le)
	default:
		a.dnsLog.Error("record operation failed", zap.String("zone", zone), zap.String("operation", op), zap.Error(err))
		writeBadGateway(w, "record %s in zone %s failed: %v", op, zone, err)
	}
}

// serverRefused answers an error rcode from named, as the zone service
// explained it.
func (a *restAPI) serverRefused(w http.ResponseWriter, b *backend, zone, op string, le *zoneservice.Error) {
	var se dnsupdate.ServerError
	if p := (*dnsupdate.ServerError)(nil); errors.As(le, &p) {
		se = *p
	}
	tsigErr := dnsupdate.RcodeName(int(se.TSIGError))
	a.dnsLog.Warn("named refused a record operation", zap.String("zone", zone), zap.String("operation", op),
		zap.String("rcode", le.Rcode), zap.Uint16("tsig_error", se.TSIGError))
	rc, key := le.Rcode, b.records.Client().KeyName()
	switch {
	case errors.Is(le, zoneservice.ErrSignature):
		writeBadGateway(w, "named rejected the TSIG signature of the update (%s, %s): check that named knows the update key %q with the same algorithm and secret, and that the clocks agree",
			rc, tsigErr, key)
	case errors.Is(le, zoneservice.ErrRcode):
		writeBadGateway(w, "record %s in zone %s: named answered %s", op, zone, rc)
	case errors.Is(le, zoneservice.ErrNotFound):
		writeError(w, http.StatusNotFound, "zone %s not found", zone)
	case errors.Is(le, zoneservice.ErrControl):
		writeBadGateway(w, "record %s in zone %s: named answered %s, and rndc zonestatus failed: %v", op, zone, rc, le.Err)
	case errors.Is(le, zoneservice.ErrFrozen):
		writeError(w, http.StatusConflict, "zone %s is frozen; thaw it (POST /api/v1/zones/%s/thaw) to change records", zone, zone)
	case errors.Is(le, zoneservice.ErrNotPrimary):
		writeError(w, http.StatusBadRequest, "zone %s is a %s zone: change its records on its primary server", zone, le.ZoneType)
	case errors.Is(le, zoneservice.ErrServerFailure):
		writeBadGateway(w, "record %s in zone %s: named failed to apply it (SERVFAIL); see named's log", op, zone)
	case errors.Is(le, zoneservice.ErrTransferRefused):
		writeBadGateway(w, "reading zone %s: named refused the zone transfer (%s): allow-transfer of the zone must admit the key %q or this host", zone, rc, key)
	case errors.Is(le, zoneservice.ErrNotZone):
		writeError(w, http.StatusBadRequest, "named answered NOTZONE: a name of the change is outside zone %s", zone)
	default:
		writeError(w, http.StatusBadRequest, "zone %s does not accept dynamic updates signed with the key %q (named answered %s): create the zone through this API, which adds allow-update { key \"%s\"; }, or add that clause to the zone's configuration",
			zone, key, rc, key)
	}
}

// lockFailed answers a zone lock that could not be had (the request's
// context ended while waiting).
func lockFailed(w http.ResponseWriter, zone string, err error) {
	writeError(w, http.StatusServiceUnavailable, "waiting for the lock of zone %s: %v", zone, err)
}

// indexFailed answers a failure to read the zone index.
func indexFailed(w http.ResponseWriter, err error) {
	writeError(w, http.StatusInternalServerError, "reading the zone index: %v", err)
}
