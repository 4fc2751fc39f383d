package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// This file is the one place where errors become HTTP answers; handlers
// decode, call, and hand a failure to one of these. The statuses:
//
//	400 Bad Request        invalid input (zonemodel.ValidationError, zonemodel.ErrInvalid);
//	                       record changes the zone cannot take (no update key,
//	                       a secondary zone, no allow-update for the key, NOTZONE)
//	404 Not Found          a zone named or the index does not know
//	409 Conflict           the zone exists; state conflicts named reports (frozen,
//	                       not dynamic, ...); DNS rules (zonemodel.ConflictError)
//	412 Precondition Failed  If-Match serial differs (zonemodel.PreconditionError)
//	500 Internal Server Error  local failures (index, files, keys)
//	500 "Bad Gateway"      a control command or DNS exchange named failed
//	429 Too Many Requests  an identity's imports at once (importGate)
//	503 Service Unavailable  the zone's lock could not be had in time; the
//	                       imports at once in all (importGate)
//	504 Gateway Timeout    named did not answer: the outcome is unknown, or,
//	                       when the command was never sent, nothing was changed
//	507 Insufficient Storage  the zone directory's disk is full
//
// Request-shape errors (bad JSON, 413, 415, query parameters) are
// answered where the request is read (the decoder, the handlers).

// Failure is the zone API's answer to a failed operation: its status,
// the body's error (the status's reason phrase unless Reason says
// otherwise) and message, the ETag of a 412, and what to log. The
// functions below compute it from the error alone; the REST handlers
// write it (Write) and the PowerDNS front end reads it (module's
// pdnsService.Status).
type Failure struct {
	// Status is the HTTP status.
	Status int
	// Reason is the body's error when it is not the status's reason
	// phrase ("Bad Gateway" on a 500).
	Reason string
	// Message is the body's message.
	Message string
	// ETag is the ETag of a 412: the zone's serial now.
	ETag string
	// RetryAfter, when not 0, is the seconds of a Retry-After.
	RetryAfter int
	log        *failureLog
}

// failureLog is a log line of a failed record operation.
type failureLog struct {
	warn   bool
	msg    string
	fields []zap.Field
}

// Error is the failure's message: a Failure is the error a handler
// returns, which the route answers (serve), as Caddy's handlers return a
// caddyhttp.Error.
func (f Failure) Error() string { return f.Message }

// answer is a failure answered with a body of its own (a 409 that says
// whether the zone has the configuration asked for, an import's refused
// line, an adoption's refusal).
type answer struct {
	status int
	body   any
}

func (e *answer) Error() string { return http.StatusText(e.status) }

// errAnswered is what a handler returns when a hook of the host (Decode,
// the scope checks) has answered the request already.
var errAnswered = errors.New("answered by the host")

// WriteFailure answers the error a handler returned: the one place where
// the REST API's failures become answers. A Failure is written as it
// says, an answer with its body, errAnswered not at all (the host has
// answered), anything else 500 with its text.
func WriteFailure(w http.ResponseWriter, err error) {
	var (
		f Failure
		b *answer
	)
	switch {
	case errors.Is(err, errAnswered):
	case errors.As(err, &f):
		f.Write(w)
	case errors.As(err, &b):
		WriteJSON(w, b.status, b.body)
	default:
		WriteError(w, http.StatusInternalServerError, "%v", err)
	}
}

// fail is a failure answered with status and its reason phrase.
func fail(status int, format string, args ...any) Failure {
	return Failure{Status: status, Message: fmt.Sprintf(format, args...)}
}

// badGateway is a failed control command or DNS exchange: status 500
// labelled "Bad Gateway", as the service specification lists it.
func badGateway(format string, args ...any) Failure {
	return Failure{Status: http.StatusInternalServerError, Reason: "Bad Gateway", Message: fmt.Sprintf(format, args...)}
}

// Write answers the failure, as WriteError does.
func (f Failure) Write(w http.ResponseWriter) {
	if f.ETag != "" {
		w.Header().Set("ETag", f.ETag)
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	reason := f.Reason
	if reason == "" {
		reason = apitypes.ReasonPhrase(f.Status)
	}
	WriteJSON(w, f.Status, errorBody{Error: reason, Message: f.Message})
}

// conflictHints are the hints of the control-command refusals that
// describe the zone's state rather than a failure of BIND (the kinds
// zonemodel.ControlRefusal reports for them): they answer 409.
var conflictHints = map[error]string{
	zonemodel.ErrExists:     "",
	zonemodel.ErrFrozen:     "",
	zonemodel.ErrNotDynamic: "the zone does not accept dynamic updates, so it cannot be frozen",
	zonemodel.ErrDynamic:    "the zone accepts dynamic updates: freeze it before reloading (thaw reloads the file too)",
	zonemodel.ErrNotFrozen:  "",
}

// commandFailure is the answer to a failed control command: 504 when it
// was sent and not answered (the outcome is unknown), 504 too when named
// did not answer in time before the command itself was sent (nothing was
// changed; noAnswer), 404 when BIND does not know the zone, 409 for state conflicts, else 500 "Bad Gateway"
// naming the command and BIND's text (the rndc client's Observe hook has
// logged the failure). modzone and retransfer refusals have their own
// answers.
func commandFailure(command, zone string, err error) Failure {
	short, answered := zonemodel.ControlAnswer(err)
	noView, defaultView := zonemodel.ControlNoSuchView(err)
	kind := zonemodel.ControlRefusal(err)
	switch {
	case errors.Is(err, zonemodel.ErrControlUnanswered):
		return outcomeUnknown(command, zone, err)
	case noAnswer(err):
		return fail(http.StatusGatewayTimeout, "rndc %s: named did not answer in time, before the command itself was sent: "+
			"nothing was sent, so nothing was changed; sending the same request again is safe. Cause: %v",
			strings.TrimSpace(command+" "+zone), err)
	case noView && defaultView:
		return fail(http.StatusBadRequest, "rndc %s %s: named has views, so every zone is in one: configure them in the zone_api block "+
			"(view <name> { … }) and name the zone's view with ?view=, or mark one default (named: %s)", command, zone, describe(err))
	case noView:
		return fail(http.StatusNotFound, "rndc %s %s: named has no such view (%s): the views configured in zone_api must be named.conf's", command, zone, describe(err))
	case zonemodel.ControlMultipleViews(err):
		return fail(http.StatusBadRequest, "zone %s is in several views of named: name one with ?view=<view>", zone)
	case command == "modzone" && answered && kind == zonemodel.ErrNotFound:
		// The zone exists (showzone said so): what is missing is
		// something the change names.
		return fail(http.StatusBadRequest, "named refused the change: rndc modzone %s: %s (a dnssec-policy or key the change names does not exist?); the zone is unchanged", zone, describe(err))
	case command == "modzone" && answered:
		return fail(http.StatusConflict, "named refused the change: rndc modzone %s: %s; the zone is unchanged", zone, describe(err))
	case command == "retransfer" && kind == zonemodel.ErrWrongType && answered:
		return fail(http.StatusConflict, "rndc retransfer %s: %s: only secondary zones transfer from primaries", zone, describe(err))
	case kind == zonemodel.ErrNotFound && zone != "" && command != "addzone":
		// For addzone, "not found" names something the zone refers to
		// (a dnssec-policy, a key), not the zone.
		return fail(http.StatusNotFound, "zone %s not found", zone)
	case answered:
		if hint, ok := conflictHints[kind]; ok {
			msg := "rndc " + command + " " + zone + ": " + short
			if hint != "" {
				msg += ": " + hint
			}
			return fail(http.StatusConflict, "%s", msg)
		}
		return badGateway("rndc %s failed: %s", command, describe(err))
	case errors.Is(err, zonemodel.ErrControlAuth):
		return badGateway("rndc %s failed: named rejected the rndc key (check the key name, algorithm and secret)", command)
	default:
		return badGateway("rndc %s failed: %v", command, err)
	}
}

// noAnswer reports whether err is a control command that named did not
// answer in time although it was never sent: the connect or the
// connection's nonce handshake timed out (named hung, or stopped), so
// named cannot have executed it. A command that was sent is
// zonemodel.ErrControlUnanswered instead.
func noAnswer(err error) bool {
	_, answered := zonemodel.ControlAnswer(err)
	return !errors.Is(err, zonemodel.ErrControlUnanswered) && !answered &&
		(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded))
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

// outcomeUnknown is the 504 for a control command that was sent but not
// answered: named may have executed it, nothing was rolled back, and the
// answer says how to learn the outcome.
func outcomeUnknown(command, zone string, err error) Failure {
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
	return fail(http.StatusGatewayTimeout, "rndc %s: named did not answer, so whether it executed the command is unknown. "+
		"The outcome is unknown: nothing was rolled back. %s. Cause: %v", target, how, err)
}

// describe formats BIND's short error and its longer text, from named's
// answer that err wraps.
func describe(err error) string { return zonemodel.DescribeControl(err) }

// LifecycleFailure is the answer to a failed create or delete.
func LifecycleFailure(zone string, err error) Failure {
	var le *zonemodel.ServiceError
	if !errors.As(err, &le) {
		return fail(http.StatusInternalServerError, "%v", err)
	}
	if le.Zone != "" {
		zone = le.Zone
	}
	if f, ok := originFailure(le); ok {
		return f
	}
	switch {
	case errors.Is(err, zonemodel.ErrExists):
		return fail(http.StatusConflict, "%s", le.Msg)
	case errors.Is(err, zonemodel.ErrCatalogZone):
		return fail(http.StatusConflict, "zone %s is the catalog zone this API keeps; remove the catalog option first", zone)
	case errors.Is(err, zonemodel.ErrNotFound):
		return fail(http.StatusNotFound, "zone %s not found", zone)
	case errors.Is(err, zonemodel.ErrOutcomeUnknown):
		cause := ""
		if le.Err != nil {
			cause = fmt.Sprintf(" Cause: %v", le.Err)
		}
		return fail(http.StatusGatewayTimeout, "%s. The outcome is unknown: nothing was rolled back. "+
			"GET /api/v1/zones/%s tells whether the zone exists; sending the same request again completes or repeats it "+
			"once named answers (POST /api/v1/server/reconcile settles every unfinished operation).%s",
			le.Msg, zone, cause)
	case errors.Is(err, zonemodel.ErrControl):
		return commandFailure(le.Command, zone, le.Err)
	case errors.Is(err, zonemodel.ErrInvalid):
		return fail(http.StatusBadRequest, "invalid zone: %v", le.Err)
	case errors.Is(err, zonemodel.ErrBusy):
		return fail(http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zonemodel.ErrStorage) && noSpace(err):
		return fail(http.StatusInsufficientStorage, "%v; nothing was changed", le)
	default:
		return fail(http.StatusInternalServerError, "%v", le)
	}
}

// noSpace reports whether err comes from a full disk or an exhausted
// quota (the zone directory's: the storage kind's cause).
func noSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) }

// originFailure answers the refusals that depend on where a zone comes
// from and on the inventory: 409 for a zone of named.conf, an unmanaged
// zone's unconfirmed delete and a type that cannot do what was asked;
// 503 when the list of every zone cannot be read (no statistics channel,
// or named's does not answer).
func originFailure(le *zonemodel.ServiceError) (Failure, bool) {
	switch {
	case errors.Is(le, zonemodel.ErrNamedConf), errors.Is(le, zonemodel.ErrUnmanaged),
		errors.Is(le, zonemodel.ErrWrongType) && le.Command == "":
		return fail(http.StatusConflict, "%s", le.Msg), true
	case errors.Is(le, zonemodel.ErrNoInventory):
		return fail(http.StatusServiceUnavailable, "%s: configure named's statistics-channels and the statistics_channel option", le.Msg), true
	case le.Command == "statistics":
		return fail(http.StatusServiceUnavailable, "%v", le), true
	}
	return Failure{}, false
}

// ServiceFailure is the answer to a failed zone operation of the zone
// service other than create and delete (LifecycleFailure) and the record
// operations (RecordFailure): a control command's failure as
// commandFailure answers that command's.
func ServiceFailure(zone string, err error) Failure {
	var le *zonemodel.ServiceError
	switch {
	case !errors.As(err, &le):
		return fail(http.StatusInternalServerError, "%v", err)
	case le.Command != "" && le.Command != "statistics":
		return commandFailure(le.Command, zone, le.Err)
	case errors.Is(err, zonemodel.ErrBusy):
		return fail(http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zonemodel.ErrInvalid):
		return fail(http.StatusBadRequest, "invalid change: %v", le.Err)
	}
	if f, ok := originFailure(le); ok {
		return f
	}
	switch {
	case errors.Is(err, zonemodel.ErrControl):
		return badGateway("%v", le)
	default:
		return fail(http.StatusInternalServerError, "%v", le)
	}
}

// NoKeyMessage explains how to enable record changes.
func NoKeyMessage(updateKey string) string {
	if updateKey == "" {
		return "record changes are disabled: no TSIG update key is configured; add `update_key_file <path>` (or `update_key <name> <algorithm> <secret>`) to the zone_api block, and allow-update { key \"<name>\"; } to the zone (zones created through this API get it)"
	}
	return fmt.Sprintf("record changes are disabled: the update key %q is configured by name only, so zones accept updates signed with it but this module cannot sign them; give its secret with `update_key_file <path>` or `update_key %s <algorithm> <secret>`", updateKey, updateKey)
}

// RecordFailure is the answer to a failed record operation. Where named
// answered with an error, the zone service has read the zone's state to
// say why: unknown zone 404, frozen 409, secondary or no allow-update for
// the module's key 400.
func RecordFailure(keys frontend.UpdateKeys, zone, op string, err error) Failure {
	var (
		ve *zonemodel.ValidationError
		ce *zonemodel.ConflictError
		pe *zonemodel.PreconditionError
		le *zonemodel.ServiceError
	)
	switch {
	case errors.As(err, &ve):
		return fail(http.StatusBadRequest, "invalid record: %s", ve.Error())
	case errors.As(err, &ce):
		return fail(http.StatusConflict, "%s; nothing was changed", ce.Error())
	case errors.As(err, &pe):
		f := fail(http.StatusPreconditionFailed, "zone %s: %s; nothing was changed", zone, pe.Error())
		f.ETag = etag(pe.Current)
		return f
	case errors.Is(err, zonemodel.ErrNoUpdateKey):
		return fail(http.StatusBadRequest, "%s", NoKeyMessage(keys.UpdateKeyName()))
	case errors.As(err, &le) && errors.Is(err, zonemodel.ErrCatalogZone):
		return fail(http.StatusConflict, "%s; nothing was changed", le.Msg)
	case errors.As(err, &le) && errors.Is(err, zonemodel.ErrOutcomeUnknown):
		f := fail(http.StatusGatewayTimeout, "record %s in zone %s: named did not answer the update (%v), so whether it was applied is unknown; "+
			"nothing was rolled back. GET /api/v1/zones/%s/records tells", op, zone, le.Err, zone)
		f.log = &failureLog{msg: "record operation outcome unknown", fields: []zap.Field{zap.String("zone", zone), zap.String("operation", op), zap.Error(le.Err)}}
		return f
	case errors.As(err, &le) && le.Rcode != "":
		return serverRefused(keys, zone, op, le)
	default:
		f := badGateway("record %s in zone %s failed: %v", op, zone, err)
		f.log = &failureLog{msg: "record operation failed", fields: []zap.Field{zap.String("zone", zone), zap.String("operation", op), zap.Error(err)}}
		return f
	}
}

// serverRefused is the answer to an error rcode from named, as the zone
// service explained it.
func serverRefused(keys frontend.UpdateKeys, zone, op string, le *zonemodel.ServiceError) Failure {
	tsig := zonemodel.TSIGError(le)
	tsigErr := zonemodel.RcodeName(int(tsig))
	rc, key := le.Rcode, keys.SigningKeyName()
	f := serverRefusal(zone, op, rc, tsigErr, key, le)
	f.log = &failureLog{warn: true, msg: "named refused a record operation", fields: []zap.Field{zap.String("zone", zone), zap.String("operation", op),
		zap.String("rcode", le.Rcode), zap.Uint16("tsig_error", tsig)}}
	return f
}

// serverRefusal maps the zone service's explanation of a refused record
// operation.
func serverRefusal(zone, op, rc, tsigErr, key string, le *zonemodel.ServiceError) Failure {
	switch {
	case errors.Is(le, zonemodel.ErrSignature):
		return badGateway("named rejected the TSIG signature of the update (%s, %s): check that named knows the update key %q with the same algorithm and secret, and that the clocks agree",
			rc, tsigErr, key)
	case errors.Is(le, zonemodel.ErrRcode):
		return badGateway("record %s in zone %s: named answered %s", op, zone, rc)
	case errors.Is(le, zonemodel.ErrNotFound):
		return fail(http.StatusNotFound, "zone %s not found", zone)
	case errors.Is(le, zonemodel.ErrControl):
		return badGateway("record %s in zone %s: named answered %s, and rndc zonestatus failed: %v", op, zone, rc, le.Err)
	case errors.Is(le, zonemodel.ErrFrozen):
		return fail(http.StatusConflict, "zone %s is frozen; thaw it (POST /api/v1/zones/%s/thaw) to change records", zone, zone)
	case errors.Is(le, zonemodel.ErrNotPrimary):
		return fail(http.StatusBadRequest, "zone %s is a %s zone: change its records on its primary server", zone, le.ZoneType)
	case errors.Is(le, zonemodel.ErrServerFailure):
		return badGateway("record %s in zone %s: named failed to apply it (SERVFAIL); see named's log", op, zone)
	case errors.Is(le, zonemodel.ErrTransferRefused):
		return badGateway("reading zone %s: named refused the zone transfer (%s): allow-transfer of the zone must admit the key %q or this host", zone, rc, key)
	case errors.Is(le, zonemodel.ErrNotZone):
		return fail(http.StatusBadRequest, "named answered NOTZONE: a name of the change is outside zone %s", zone)
	default:
		return fail(http.StatusBadRequest, "zone %s does not accept dynamic updates signed with the key %q (named answered %s): create the zone through this API, which adds allow-update { key \"%s\"; }, or add that clause to the zone's configuration",
			zone, key, rc, key)
	}
}

// indexFailure is the answer to a failure to read the zone index.
func indexFailure(err error) Failure {
	return fail(http.StatusInternalServerError, "reading the zone index: %v", err)
}

// LogFailure writes the failure's log line, if it has one (a failed
// record operation's), to log.
func LogFailure(log *zap.Logger, f Failure) {
	switch l := f.log; {
	case l == nil:
	case l.warn:
		log.Warn(l.msg, l.fields...)
	default:
		log.Error(l.msg, l.fields...)
	}
}
