package zonemodel

import (
	"errors"
	"strconv"

	"github.com/miekg/dns"
)

// What a front end reads of the causes the zone service passes on inside
// a *ServiceError, without importing the packages that make them: the
// control channel's (package rndc) and the DNS messages' (dnsupdate).

// ErrControlUnanswered is wrapped by the error of a control command that
// was sent to named but got no reply (a timeout, a lost connection, a
// reply that does not verify): named may or may not have executed it,
// now or later (rndc.ErrOutcomeUnknown).
var ErrControlUnanswered = errors.New("the command was sent but named did not answer, so whether it was executed is unknown")

// ErrControlAuth means named closed the control connection without a
// valid reply: the rndc key is not the one named knows (rndc.ErrAuth).
var ErrControlAuth = errors.New("rndc authentication failed: named closed the connection without a valid reply (wrong key, secret or algorithm, host not allowed, or clock skew)")

// viewAnswer is named's answer to a control command as it names views
// (rndc.Error).
type viewAnswer interface {
	error
	// Short is named's short error text, e.g. "already exists".
	Short() string
	// NoSuchView reports whether named refused the command for a view it
	// does not have, and whether that view is "_default" (a command that
	// named no view, on a server with views).
	NoSuchView() (refused, defaultView bool)
	// MultipleViews reports whether named refused the command because
	// the zone is in several views.
	MultipleViews() bool
}

// ControlAnswer returns named's short error text when err is (or wraps)
// named's answer to a control command; ok is false otherwise (the
// command was not answered, or failed before it was sent).
func ControlAnswer(err error) (short string, ok bool) {
	var a viewAnswer
	if !errors.As(err, &a) {
		return "", false
	}
	return a.Short(), true
}

// ControlNoSuchView reports whether err is named refusing a command for
// a view it does not have, and whether that view is "_default".
func ControlNoSuchView(err error) (refused, defaultView bool) {
	var a viewAnswer
	if !errors.As(err, &a) {
		return false, false
	}
	return a.NoSuchView()
}

// ControlMultipleViews reports whether err is named refusing a command
// for a zone that is in several of its views.
func ControlMultipleViews(err error) bool {
	var a viewAnswer
	return errors.As(err, &a) && a.MultipleViews()
}

// tsigAnswer is named's answer to a DNS message that carried a TSIG
// error (dnsupdate.ServerError).
type tsigAnswer interface {
	error
	TSIGErrorCode() uint16
}

// TSIGError returns the TSIG error field of named's answer that err is
// (or wraps), 0 when none: BADSIG, BADKEY or BADTIME when named rejected
// the signature.
func TSIGError(err error) uint16 {
	var a tsigAnswer
	if !errors.As(err, &a) {
		return 0
	}
	return a.TSIGErrorCode()
}

// RcodeName is the name of a DNS response code or TSIG error (NOERROR,
// REFUSED, BADSIG), its number when it has none.
func RcodeName(rcode int) string {
	if s := dns.RcodeToString[rcode]; s != "" {
		return s
	}
	return strconv.Itoa(rcode)
}
