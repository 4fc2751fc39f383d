package dnsupdate

import (
	"fmt"
	"strings"
	"time"
)

// SerialMethod is how a change sets the zone's next serial: the values
// of named's serial-update-method.
type SerialMethod string

// The serial update methods.
const (
	// SerialIncrement adds one (named's default).
	SerialIncrement SerialMethod = "increment"
	// SerialUnixtime takes the current Unix time when that is greater.
	SerialUnixtime SerialMethod = "unixtime"
	// SerialDate takes YYYYMMDD00 of the current UTC date when that is
	// greater.
	SerialDate SerialMethod = "date"
)

// ParseSerialMethod checks a serial-update-method name ("" is increment).
func ParseSerialMethod(s string) (SerialMethod, error) {
	switch m := SerialMethod(strings.ToLower(s)); m {
	case "", SerialIncrement:
		return SerialIncrement, nil
	case SerialUnixtime, SerialDate:
		return m, nil
	}
	return "", fmt.Errorf("serial update method %q: want increment, unixtime or date", s)
}

// Next is the serial after old at time now, as named computes it: the
// method's candidate when it is greater than old in RFC 1982 arithmetic,
// else old plus one, skipping 0.
func (m SerialMethod) Next(old uint32, now time.Time) uint32 {
	var candidate uint32
	switch m {
	case SerialUnixtime:
		candidate = uint32(now.Unix())
	case SerialDate:
		y, mo, d := now.UTC().Date()
		candidate = uint32((y*10000 + int(mo)*100 + d) * 100)
	}
	if candidate != 0 && serialLess(old, candidate) {
		return candidate
	}
	old++
	if old == 0 {
		old = 1
	}
	return old
}

// serialLess compares serials with RFC 1982 arithmetic.
func serialLess(a, b uint32) bool { return a != b && int32(b-a) > 0 }
