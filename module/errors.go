package module

import (
	"context"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rest"
)

// The zone API's errors become HTTP answers in package rest (errors.go);
// what is left here hands the module's backend to it.

// backendOr500 returns the backend or answers 500 when it cannot be set up
// (unreadable key file, missing zone directory).
//
// The first time in the process it also runs the start-up reconciles
// (zoneservice.Server.Start: the zone directory with named, the catalog
// with the index). Handlers call it only once the request is authorised
// completely (its route, zone and records), so that nothing an
// unauthorised request does reaches named or the disk.
func (a *restAPI) backendOr500(w http.ResponseWriter) (*backend, bool) {
	b, err := a.backend()
	if err != nil {
		a.logger.Error("backend unavailable", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return nil, false
	}
	b.server.Start(context.Background(), "")
	return b, true
}

// failure is the zone API's answer to a failed operation (rest.Failure).
type failure = rest.Failure

// fail is a failure answered with status and its reason phrase.
func fail(status int, format string, args ...any) failure {
	return failure{Status: status, Message: fmt.Sprintf(format, args...)}
}

// logFailure writes the failure's log line, if it has one, to the DNS
// log.
func (a *restAPI) logFailure(f failure) { rest.LogFailure(a.dnsLog, f) }

// lifecycleFailure is the answer to a failed create or delete.
func lifecycleFailure(zone string, err error) failure { return rest.LifecycleFailure(zone, err) }

// serviceFailure is the answer to a failed zone operation other than
// create, delete and the record operations.
func serviceFailure(zone string, err error) failure { return rest.ServiceFailure(zone, err) }

// recordFailure is the answer to a failed record operation.
func recordFailure(b *backend, zone, op string, err error) failure {
	return rest.RecordFailure(b.svc, zone, op, err)
}
