package zonemodel

import (
	"errors"
	"fmt"
	"strings"
)

// The zone service's typed errors, as every front end inspects them
// (errors.Is on the kinds, errors.As on the error types): the service
// (package zoneservice) returns them, and its updater (package dnsupdate)
// the record errors; each front end maps them to its own answers.

// The kinds of lifecycle errors. Every *ServiceError matches (errors.Is)
// exactly one of them.
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
// serve). ServiceError.Op names the operation, ServiceError.Rcode named's
// answer, and Err is the DNS answer's error (dnsupdate.ServerError).
var (
	// ErrFrozen means the zone is frozen: it takes record changes again
	// once it is thawed.
	ErrFrozen = errors.New("zone frozen")
	// ErrNotPrimary means the zone is not a primary zone
	// (ServiceError.ZoneType says what it is): its records change on its
	// primary server.
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

// The kinds of refusals that depend on where a zone's configuration comes
// from (see package inventory).
var (
	// ErrNamedConf means the zone is configured in named.conf: modzone
	// and delzone cannot change it durably (named takes named.conf's
	// statement back at its next reconfig or restart), so the API does
	// not change, delete or adopt it. ServiceError.Clause, for an adopt,
	// is the clause to add to its statement in named.conf.
	ErrNamedConf = errors.New("zone configured in named.conf")
	// ErrUnmanaged means the zone was not created or adopted through the
	// API, and the operation (a delete) needs the caller's explicit
	// confirmation for such a zone.
	ErrUnmanaged = errors.New("zone not managed")
)

// ErrNoInventory means the service has no Inventory (no statistics
// channel is configured), so it cannot list the zones it does not manage.
var ErrNoInventory = errors.New("no zone inventory")

// The errors of an Idempotency-Key's request.
var (
	// ErrKeyBusy means a request with the key is being answered in this
	// process (the draft's 409).
	ErrKeyBusy = errors.New("a request with this Idempotency-Key is being answered")
	// ErrKeyReused means the key was used with another request body
	// (the draft's 422).
	ErrKeyReused = errors.New("the Idempotency-Key was used with another request")
	// ErrNoKeys means the service's store keeps no Idempotency-Keys (a
	// store other than *zonestore.Store).
	ErrNoKeys = errors.New("the zone store keeps no Idempotency-Keys")
)

// The kinds of an import's failures, besides those of a create.
var (
	// ErrTooLarge means the zone is over MaxImportBytes or
	// MaxImportRecords.
	ErrTooLarge = errors.New("zone too large")
	// ErrSource means the server an import transfers from could not be
	// reached, refused the transfer or sent something that is not the
	// zone.
	ErrSource = errors.New("import source failed")
	// ErrSourceTimeout means the server an import transfers from did not
	// answer in time.
	ErrSourceTimeout = errors.New("import source timed out")
)

// The states of a zone that named's refusal of a control command
// reports besides ErrExists ("already exists"), ErrFrozen ("already
// frozen"), ErrNotFound and ErrWrongType; ControlRefusal tells them
// apart.
var (
	// ErrNotFrozen means the zone is not frozen (thaw of a zone that
	// is not).
	ErrNotFrozen = errors.New("zone not frozen")
	// ErrNotDynamic means the zone does not accept dynamic updates, so
	// it cannot be frozen.
	ErrNotDynamic = errors.New("zone not dynamic")
	// ErrDynamic means the zone accepts dynamic updates, so it reloads
	// only once frozen.
	ErrDynamic = errors.New("zone dynamic")
)

// The errors of record operations besides the kinds above.
var (
	// ErrRecordNotFound means the record a change depends on does not
	// exist.
	ErrRecordNotFound = errors.New("record not found")
	// ErrNoUpdateKey means the updater holds no TSIG key to sign updates.
	ErrNoUpdateKey = errors.New("no TSIG update key with a secret is configured")
)

// ServiceError is a failure of the zone service (zoneservice.Error): its
// Kind is one of the Err* kinds above, Command the control command
// involved (if any) and Err the cause (for ErrControl, named's answer,
// which ControlRefusal and DescribeControl read).
type ServiceError struct {
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
	// through this API by a request with the same body (see
	// zoneservice.SameBody).
	SameConfig bool
	// Clause and Statement, for ErrNamedConf of an adopt, are the clause
	// to add to the zone's statement in named.conf so that the API's
	// update key may change its records, and the whole statement with it
	// ("" when the zone needs none).
	Clause, Statement string
}

// Error returns Msg and the cause.
func (e *ServiceError) Error() string {
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
func (e *ServiceError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// ConflictError is a change refused because of a DNS rule that named
// would otherwise silently ignore (CNAME and other data, apex NS), or
// because the zone's data no longer allows it.
type ConflictError struct {
	// Field is the JSON path of the offending change, or "".
	Field string
	// Message says what conflicts.
	Message string
}

func (e *ConflictError) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// PreconditionError means the zone's serial is not the one the request
// was conditional on (If-Match).
type PreconditionError struct {
	// Expected is the serial the request named.
	Expected uint32
	// Current is the zone's serial now.
	Current uint32
}

func (e *PreconditionError) Error() string {
	return fmt.Sprintf("zone serial is %d, not %d: the zone changed since it was read", e.Current, e.Expected)
}

// controlAnswer is named's answer to a control command, as the service
// passes it on as a ServiceError's cause (rndc.Error).
type controlAnswer interface {
	error
	// Refusal is the state of the zone the refusal reports (a kind
	// above), or nil.
	Refusal() error
	// Describe is named's short error text and, when it says more, its
	// longer text.
	Describe() string
}

// ControlRefusal classifies named's refusal of a control command (the
// cause of an ErrControl, possibly wrapped): ErrExists, ErrFrozen,
// ErrNotFrozen, ErrNotDynamic or ErrDynamic for a state of the zone,
// ErrNotFound when named does not know what the command names,
// ErrWrongType when the zone's type does not allow the command; nil
// otherwise (and for errors that are not named's answer).
func ControlRefusal(err error) error {
	var a controlAnswer
	if !errors.As(err, &a) {
		return nil
	}
	return a.Refusal()
}

// DescribeControl formats the error named answered a control command
// with: its short error and, when it says more, its longer text. Other
// errors are described by their Error method.
func DescribeControl(err error) string {
	var a controlAnswer
	if !errors.As(err, &a) {
		return err.Error()
	}
	return a.Describe()
}

// ZoneError is the failure of the change of one zone among several
// changed one after the other (the external-dns webhook's one UPDATE per
// zone): Zone names it, and the zones changed before it stay changed.
type ZoneError struct {
	Zone string
	Err  error
}

func (e *ZoneError) Error() string { return e.Err.Error() }
func (e *ZoneError) Unwrap() error { return e.Err }

// PrerequisiteError means named refused an update because one of its
// prerequisites no longer holds (RFC 2136 section 3.2): Rcode is named's
// answer (NXRRSET, YXRRSET, NXDOMAIN or YXDOMAIN), Err the answer.
type PrerequisiteError struct {
	Rcode string
	Err   error
}

func (e *PrerequisiteError) Error() string { return e.Err.Error() }
func (e *PrerequisiteError) Unwrap() error { return e.Err }
