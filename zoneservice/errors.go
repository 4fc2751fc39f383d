package zoneservice

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// The kinds of lifecycle errors (zonemodel's). Every error the Service
// returns is an *Error that matches (errors.Is) exactly one of them.
var (
	ErrExists         = zonemodel.ErrExists
	ErrNotFound       = zonemodel.ErrNotFound
	ErrOutcomeUnknown = zonemodel.ErrOutcomeUnknown
	ErrControl        = zonemodel.ErrControl
	ErrStorage        = zonemodel.ErrStorage
	ErrInvalid        = zonemodel.ErrInvalid
	ErrBusy           = zonemodel.ErrBusy
	ErrHook           = zonemodel.ErrHook
	ErrCatalogZone    = zonemodel.ErrCatalogZone
	ErrWrongType      = zonemodel.ErrWrongType
	ErrNoCatalog      = zonemodel.ErrNoCatalog
)

// The kinds of a record operation that named refused (zonemodel's).
var (
	ErrFrozen          = zonemodel.ErrFrozen
	ErrNotPrimary      = zonemodel.ErrNotPrimary
	ErrUpdateRefused   = zonemodel.ErrUpdateRefused
	ErrTransferRefused = zonemodel.ErrTransferRefused
	ErrNotZone         = zonemodel.ErrNotZone
	ErrServerFailure   = zonemodel.ErrServerFailure
	ErrSignature       = zonemodel.ErrSignature
	ErrRcode           = zonemodel.ErrRcode
)

// Error is a failure of the service (zonemodel.ServiceError, which front
// ends inspect): its Kind is one of the Err* kinds, Command the control
// command involved (if any) and Err the cause (for ErrControl, the
// *rndc.Error with BIND's text).
type Error = zonemodel.ServiceError

func newErr(kind error, zone, command, msg string, cause error) *Error {
	return &Error{Kind: kind, Zone: zone, Command: command, Msg: msg, Err: cause}
}
