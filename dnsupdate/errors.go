package dnsupdate

import (
	"errors"
	"fmt"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ServerError is a DNS answer with an error rcode from named.
type ServerError struct {
	// Op is what was asked: "update", "query", "transfer".
	Op string
	// Zone is the zone the message was about.
	Zone string
	// Rcode is the response code, e.g. dns.RcodeRefused.
	Rcode int
	// TSIGError is the error field of the response's TSIG record (BADSIG,
	// BADKEY, BADTIME), or 0.
	TSIGError uint16
}

// TSIGErrorCode is the answer's TSIG error (zonemodel.TSIGError).
func (e *ServerError) TSIGErrorCode() uint16 { return e.TSIGError }

// Error describes the answer, e.g. "update of example.com: REFUSED".
func (e *ServerError) Error() string {
	s := fmt.Sprintf("%s of %s: named answered %s", e.Op, e.Zone, dns.RcodeToString[e.Rcode])
	if e.TSIGError != 0 {
		s += " (TSIG " + dns.RcodeToString[int(e.TSIGError)] + ")"
	}
	return s
}

// IsRcode reports whether err is a *ServerError with the given rcode.
func IsRcode(err error, rcode int) bool {
	var se *ServerError
	return errors.As(err, &se) && se.Rcode == rcode
}

func mxConflict(field string, mx *dns.MX) *ConflictError {
	return &ConflictError{Field: field, Message: fmt.Sprintf("the MX target %s is inside the zone but has no A or AAAA record, and named refuses such an MX (check-integrity): add the address first", mx.Mx)}
}

// ErrRecordNotFound means the record a change depends on does not exist
// (zonemodel's).
var ErrRecordNotFound = zonemodel.ErrRecordNotFound

// ErrNoUpdateKey means the updater holds no TSIG key to sign updates
// (zonemodel's).
var ErrNoUpdateKey = zonemodel.ErrNoUpdateKey

// ConflictError is a change refused because of a DNS rule
// (zonemodel.ConflictError).
type ConflictError = zonemodel.ConflictError

// PreconditionError means the zone's serial is not the one the request
// was conditional on (zonemodel.PreconditionError).
type PreconditionError = zonemodel.PreconditionError

func soaConflict(field string) *ConflictError {
	return &ConflictError{Field: field, Message: "the SOA record is maintained by named, which bumps its serial on every change; it cannot be added, replaced or deleted here"}
}
