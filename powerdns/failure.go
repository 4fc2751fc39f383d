package powerdns

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

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// This file is the one place where an error of the zone service becomes a
// PowerDNS answer (status and {"error": "…"} body): failureOf maps the
// error's kind, fail writes it. PowerDNS answers invalid input, DNS rules
// and state conflicts with 422 Unprocessable Entity (a zone that exists
// with 409 Conflict when it is created), an unknown zone with 404, and
// failures of the server with 5xx:
//
//	422  *InputError, zonemodel.ValidationError, zonemodel.ConflictError,
//	     zonemodel.PreconditionError, no update key, the catalog zone,
//	     ErrInvalid, ErrFrozen, ErrNotPrimary, ErrNotZone, ErrUpdateRefused,
//	     named's refusals of a control command for the zone's state,
//	     ErrNamedConf, ErrUnmanaged, ErrWrongType
//	409  ErrExists (conflict: the same kinds stay 409 on a create or import)
//	404  ErrNotFound
//	413  ErrTooLarge; 429/503 too many imports at once (Retry-After)
//	502  ErrSource, an import's ErrTransferRefused
//	503  ErrBusy, ErrNoInventory, named's statistics unreadable
//	504  ErrOutcomeUnknown, ErrSourceTimeout, named not answering before a
//	     control command was sent
//	507  the zone directory's disk is full
//	500  the rest (named failed, local failures)

// failure is PowerDNS's answer to an error.
type failure struct {
	status int
	msg    string
	// conflict marks a 422 that a create answers 409 (the zone's state,
	// not the request, is in the way).
	conflict   bool
	retryAfter int
	zone       string
	// log, when set, is logged on the DNS log (a failed record
	// operation): warn, else error.
	log  string
	warn bool
}

func unprocessable(format string, args ...any) failure {
	return failure{status: http.StatusUnprocessableEntity, msg: fmt.Sprintf(format, args...)}
}

func conflicting(format string, args ...any) failure {
	return failure{status: http.StatusUnprocessableEntity, conflict: true, msg: fmt.Sprintf(format, args...)}
}

func failed(status int, format string, args ...any) failure {
	return failure{status: status, msg: fmt.Sprintf(format, args...)}
}

// failureOf maps an error of the zone service (through this package's
// Service, a *frontend.CallError naming the call's zone and record
// operation) to PowerDNS's answer: the one mapping of this API.
func failureOf(err error) failure {
	var ce *frontend.CallError
	zone, op, key := "", "", ""
	if errors.As(err, &ce) {
		zone, op, key = ce.Zone, ce.Op, ce.UpdateKey
	}
	f := kindFailure(err, zone, op, key)
	f.zone = zone
	return f
}

func kindFailure(err error, zone, op, key string) failure {
	var (
		ie   *InputError
		ve   *zonemodel.ValidationError
		ce   *zonemodel.ConflictError
		pe   *zonemodel.PreconditionError
		fe   *zonemodel.FileError
		busy *frontend.ImportsBusy
		le   *zonemodel.ServiceError
	)
	switch {
	case errors.As(err, &ie):
		return unprocessable("%s", ie.Message)
	case errors.As(err, &busy):
		f := failed(busy.Status, "%s", busy.Message)
		f.retryAfter = busy.RetryAfter
		return f
	case errors.As(err, &ve) && op != "":
		return unprocessable("invalid record: %s", ve.Error())
	case errors.As(err, &ve):
		return unprocessable("%v", ve)
	case errors.As(err, &ce):
		return conflicting("%s; nothing was changed", ce.Error())
	case errors.As(err, &pe):
		return unprocessable("zone %s: %s; nothing was changed", zone, pe.Error())
	case errors.Is(err, zonemodel.ErrNoUpdateKey):
		return unprocessable("%s", noKeyMessage(key))
	case !errors.As(err, &le) && op != "":
		return failure{status: http.StatusInternalServerError, msg: fmt.Sprintf("record %s in zone %s failed: %v", op, zone, err), log: "record operation failed"}
	case !errors.As(err, &le):
		return failed(http.StatusInternalServerError, "%v", err)
	case le.Zone != "" && zone == "":
		zone = le.Zone
	}
	if le.Rcode != "" {
		return refusal(le, zone, op, key)
	}
	switch {
	case errors.Is(err, zonemodel.ErrNotFound):
		return failed(http.StatusNotFound, "Could not find domain '%s'", FQDN(zone))
	case errors.Is(err, zonemodel.ErrExists):
		return conflicting("Conflict: Domain '%s' already exists", FQDN(zone))
	case errors.Is(err, zonemodel.ErrCatalogZone):
		return conflicting("%s; nothing was changed", le.Msg)
	case errors.Is(err, zonemodel.ErrNamedConf), errors.Is(err, zonemodel.ErrUnmanaged),
		errors.Is(err, zonemodel.ErrWrongType) && le.Command == "":
		return conflicting("%s", le.Msg)
	case errors.Is(err, zonemodel.ErrNoInventory):
		return failed(http.StatusServiceUnavailable, "%s: configure named's statistics-channels and the statistics_channel option", le.Msg)
	case le.Command == "statistics":
		return failed(http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zonemodel.ErrOutcomeUnknown) && op != "":
		return failure{status: http.StatusGatewayTimeout, log: "record operation outcome unknown",
			msg: fmt.Sprintf("record %s in zone %s: named did not answer the update (%v), so whether it was applied is unknown; nothing was rolled back", op, zone, le.Err)}
	case errors.Is(err, zonemodel.ErrOutcomeUnknown):
		return failed(http.StatusGatewayTimeout, "%s. The outcome is unknown: nothing was rolled back; sending the same request again completes or repeats it once named answers. Cause: %v", le.Msg, le.Err)
	case errors.Is(err, zonemodel.ErrControl) && le.Command != "":
		return commandFailure(le.Command, zone, le.Err)
	case errors.Is(err, zonemodel.ErrInvalid) && errors.As(err, &fe):
		return unprocessable("zone %s was not imported, nothing was written: %s", zone, fe.Error())
	case errors.Is(err, zonemodel.ErrInvalid):
		return unprocessable("%v", le)
	case errors.Is(err, zonemodel.ErrTooLarge):
		return failed(http.StatusRequestEntityTooLarge, "%v", err)
	case errors.Is(err, zonemodel.ErrSource), errors.Is(err, zonemodel.ErrTransferRefused):
		return failed(http.StatusBadGateway, "%v; nothing was written", err)
	case errors.Is(err, zonemodel.ErrSourceTimeout):
		return failed(http.StatusGatewayTimeout, "%v; nothing was written", err)
	case errors.Is(err, zonemodel.ErrBusy):
		return failed(http.StatusServiceUnavailable, "%v", le)
	case errors.Is(err, zonemodel.ErrStorage) && errors.Is(err, syscall.ENOSPC):
		return failed(http.StatusInsufficientStorage, "%v; nothing was changed", le)
	case op != "":
		return failure{status: http.StatusInternalServerError, msg: fmt.Sprintf("record %s in zone %s failed: %v", op, zone, err), log: "record operation failed"}
	}
	return failed(http.StatusInternalServerError, "%v", le)
}

// refusal is the answer to a record operation named refused, as the zone
// service explained it.
func refusal(le *zonemodel.ServiceError, zone, op, key string) failure {
	var f failure
	switch {
	case errors.Is(le, zonemodel.ErrSignature):
		f = failed(http.StatusInternalServerError, "named rejected the TSIG signature of the update (%s): check that named knows the update key %q with the same algorithm and secret, and that the clocks agree", le.Rcode, key)
	case errors.Is(le, zonemodel.ErrNotFound):
		f = failed(http.StatusNotFound, "Could not find domain '%s'", FQDN(zone))
	case errors.Is(le, zonemodel.ErrControl):
		f = failed(http.StatusInternalServerError, "record %s in zone %s: named answered %s, and rndc zonestatus failed: %v", op, zone, le.Rcode, le.Err)
	case errors.Is(le, zonemodel.ErrFrozen):
		f = conflicting("zone %s is frozen; thaw it to change records", zone)
	case errors.Is(le, zonemodel.ErrNotPrimary):
		f = unprocessable("zone %s is a %s zone: change its records on its primary server", zone, le.ZoneType)
	case errors.Is(le, zonemodel.ErrServerFailure):
		f = failed(http.StatusInternalServerError, "record %s in zone %s: named failed to apply it (SERVFAIL); see named's log", op, zone)
	case errors.Is(le, zonemodel.ErrTransferRefused):
		f = failed(http.StatusInternalServerError, "reading zone %s: named refused the zone transfer (%s): allow-transfer of the zone must admit the key %q or this host", zone, le.Rcode, key)
	case errors.Is(le, zonemodel.ErrNotZone):
		f = unprocessable("named answered NOTZONE: a name of the change is outside zone %s", zone)
	case errors.Is(le, zonemodel.ErrRcode):
		f = failed(http.StatusInternalServerError, "record %s in zone %s: named answered %s", op, zone, le.Rcode)
	case errors.Is(le, zonemodel.ErrUpdateRefused) && le.KeyAdmitted:
		// The zone admits the key: named refused the change itself,
		// which for an UPDATE it can sign is its check-names rule.
		f = unprocessable("named refused the change to zone %s (%s) although the zone admits updates signed with the key %q: a name is not a host name where named's check-names requires one (the owner of an A, AAAA or MX record, the target of an MX or NS record), such as one with an underscore; the zone's RFC1123-CONFORMANCE metadata 0 allows such names (check-names ignore)", zone, le.Rcode, key)
	default:
		f = unprocessable("zone %s does not accept dynamic updates signed with the key %q (named answered %s): add allow-update { key \"%s\"; } to the zone's configuration", zone, key, le.Rcode, key)
	}
	f.log, f.warn = "named refused a record operation", true
	return f
}

// commandFailure is the answer to a control command named refused or did
// not answer before it was sent (ErrControl).
func commandFailure(command, zone string, err error) failure {
	target := strings.TrimSpace(command + " " + zone)
	kind := zonemodel.ControlRefusal(err)
	switch {
	case kind == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)):
		return failed(http.StatusGatewayTimeout, "rndc %s: named did not answer in time, before the command itself was sent: "+
			"nothing was sent, so nothing was changed; sending the same request again is safe. Cause: %v", target, err)
	case command == "modzone" && kind == zonemodel.ErrNotFound:
		return unprocessable("named refused the change: rndc modzone %s: %s (a dnssec-policy or key the change names does not exist?); the zone is unchanged", zone, zonemodel.DescribeControl(err))
	case command == "modzone" && kind != nil:
		return conflicting("named refused the change: rndc modzone %s: %s; the zone is unchanged", zone, zonemodel.DescribeControl(err))
	case kind == zonemodel.ErrNotFound && zone != "" && command != "addzone":
		return failed(http.StatusNotFound, "Could not find domain '%s'", FQDN(zone))
	case kind != nil:
		return conflicting("rndc %s: %s", target, zonemodel.DescribeControl(err))
	}
	return failed(http.StatusInternalServerError, "rndc %s failed: %s", command, zonemodel.DescribeControl(err))
}

// noKeyMessage explains how to enable record changes.
func noKeyMessage(key string) string {
	if key == "" {
		return "record changes are disabled: no TSIG update key is configured; add `update_key_file <path>` (or `update_key <name> <algorithm> <secret>`) to the zone_api block, and allow-update { key \"<name>\"; } to the zone (zones created through this API get it)"
	}
	return fmt.Sprintf("record changes are disabled: the update key %q is configured by name only, so zones accept updates signed with it but this module cannot sign them; give its secret with `update_key_file <path>` or `update_key %s <algorithm> <secret>`", key, key)
}

// fail answers an error: failureOf's status and message, a 409 of a
// conflict when keep409 (a create), and, with explain, the fields of the
// service's validation and conflict errors named as the request's RRsets.
func (a *API) fail(w http.ResponseWriter, err error, explain func(field, msg string) string, keep409 bool) {
	f := failureOf(err)
	if f.log != "" && a.Logger != nil {
		l := a.Logger.Error
		if f.warn {
			l = a.Logger.Warn
		}
		l(f.log, zap.String("zone", f.zone), zap.Error(err))
	}
	if f.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfter))
	}
	if explain != nil {
		var ve *zonemodel.ValidationError
		var ce *zonemodel.ConflictError
		switch {
		case errors.As(err, &ve):
			parts := make([]string, len(ve.Problems))
			for i, p := range ve.Problems {
				parts[i] = explain(p.Field, p.Message)
			}
			f.msg = strings.Join(parts, "; ")
		case errors.As(err, &ce):
			f.msg = explain(ce.Field, "Conflicts with pre-existing RRset: "+ce.Message)
		}
	}
	if f.conflict && keep409 {
		f.status = http.StatusConflict
	}
	WriteError(w, f.status, "%s", f.msg)
}
