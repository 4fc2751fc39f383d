package zoneservice

import (
	"errors"
	"strings"
)

// The kinds of lifecycle errors. Every error the Service returns is an
// *Error that matches (errors.Is) exactly one of them.
var (
	// ErrExists means the zone exists (in the index or in named) and the
	// request is not a retry of the create that made it.
	ErrExists = errors.New("zone already exists")
	// ErrNotFound means neither named nor the index knows the zone.
	ErrNotFound = errors.New("zone not found")
	// ErrOutcomeUnknown means a control command was sent but not answered
	// (or named cannot be asked): named may have executed it. Nothing was
	// rolled back; the zone's pending intent is settled by the next
	// request for the zone or by Reconcile, from what named then reports.
	ErrOutcomeUnknown = errors.New("outcome unknown")
	// ErrControl means named refused a control command or could not be
	// reached before the command was sent: nothing was changed.
	ErrControl = errors.New("control command failed")
	// ErrStorage means the zone directory or the index could not be read
	// or written.
	ErrStorage = errors.New("zone storage failed")
	// ErrInvalid means the zone cannot be rendered.
	ErrInvalid = errors.New("invalid zone")
	// ErrBusy means the zone's lock could not be taken before the context
	// ended.
	ErrBusy = errors.New("zone busy")
	// ErrHook means the Hook failed (see Hook for what was undone).
	ErrHook = errors.New("zone hook failed")
	// ErrCatalogZone means the operation would delete the catalog zone
	// the service keeps, or change its records.
	ErrCatalogZone = errors.New("zone is the catalog zone")
	// ErrWrongType means the zone's type does not allow the operation
	// (Modify: primaries of a zone that is not a secondary).
	ErrWrongType = errors.New("wrong zone type")
	// ErrNoCatalog means no catalog zone is configured.
	ErrNoCatalog = errors.New("no catalog zone")
)

// The kinds of a record operation that named refused (its answer's rcode
// was an error), explained by what named then reports of the zone (the
// record operations return ErrNotFound, too, for a zone named does not
// serve). Error.Op names the operation, Error.Rcode named's answer, and
// Err is the *dnsupdate.ServerError.
var (
	// ErrFrozen means the zone is frozen: it takes record changes again
	// once it is thawed.
	ErrFrozen = errors.New("zone frozen")
	// ErrNotPrimary means the zone is not a primary zone (Error.ZoneType
	// says what it is): its records change on its primary server.
	ErrNotPrimary = errors.New("not a primary zone")
	// ErrUpdateRefused means named refused an update the zone's state
	// does not explain: the zone does not allow updates signed with the
	// service's key.
	ErrUpdateRefused = errors.New("update refused")
	// ErrTransferRefused means named refused the zone transfer a read
	// needs: allow-transfer does not admit the key or this host.
	ErrTransferRefused = errors.New("transfer refused")
	// ErrNotZone means named answered NOTZONE: a name of the change is
	// outside the zone.
	ErrNotZone = errors.New("name outside the zone")
	// ErrServerFailure means named failed to apply the change (SERVFAIL).
	ErrServerFailure = errors.New("server failure")
	// ErrSignature means named rejected the TSIG signature (Err's
	// TSIGError says how).
	ErrSignature = errors.New("signature rejected")
	// ErrRcode means named answered an error rcode the operation does
	// not expect.
	ErrRcode = errors.New("unexpected answer")
)

// Error is a lifecycle failure: its Kind is one of the Err* values above,
// Command the control command involved (if any) and Err the cause (for
// ErrControl, the *rndc.Error with BIND's text).
type Error struct {
	Kind    error
	Zone    string
	Command string
	// Op is the record operation ("add", "remove", "update", "batch",
	// "apply", "read"), for the errors of record operations.
	Op string
	// Rcode is named's answer to a refused record operation, e.g.
	// "REFUSED".
	Rcode string
	// ZoneType is the zone's type, for ErrNotPrimary.
	ZoneType string
	// KeyAdmitted, for ErrUpdateRefused, is true when the zone's
	// allow-update names the service's key: the refusal is then not the
	// key's but the change's, most likely a name named's check-names
	// refuses (an A record at _x.example.com).
	KeyAdmitted bool
	// Msg says what failed, in lower case, without the cause.
	Msg string
	Err error
	// SameConfig, for ErrExists, is true when the existing zone was made
	// through this API by a request with the same body (see SameBody).
	SameConfig bool
	// Clause and Statement, for ErrNamedConf of an adopt, are the clause
	// to add to the zone's statement in named.conf so that the API's
	// update key may change its records, and the whole statement with it
	// ("" when the zone needs none).
	Clause, Statement string
}

// Error returns Msg and the cause.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Msg)
	if e.Err != nil {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the kind and the cause, so that errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newErr(kind error, zone, command, msg string, cause error) *Error {
	return &Error{Kind: kind, Zone: zone, Command: command, Msg: msg, Err: cause}
}
