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
)

// Error is a lifecycle failure: its Kind is one of the Err* values above,
// Command the control command involved (if any) and Err the cause (for
// ErrControl, the *rndc.Error with BIND's text).
type Error struct {
	Kind    error
	Zone    string
	Command string
	// Msg says what failed, in lower case, without the cause.
	Msg string
	Err error
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
