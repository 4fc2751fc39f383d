package powerdns

import (
	"strings"
	"time"
)

// The values of SOA-EDIT-API (a zone's soa_edit_api) that edit a new
// zone's serial, as PowerDNS documents them.
const (
	SOAEditAPIDefault       = "DEFAULT"           // YYYYMMDD01, or one more than a serial at or above it
	SOAEditAPIIncrease      = "INCREASE"          // one more
	SOAEditAPIEpoch         = "EPOCH"             // the current Unix time
	SOAEditAPISOAEdit       = "SOA-EDIT"          // what the zone's SOA-EDIT gives
	SOAEditAPISOAEditIncr   = "SOA-EDIT-INCREASE" // SOA-EDIT's, or one more when that is not greater
	soaEditInceptionIncr    = "INCEPTION-INCREMENT"
	soaEditInceptionEpoch   = "INCEPTION-EPOCH"
	soaEditEpoch            = "EPOCH"
	soaEditIncrementWeeks   = "INCREMENT-WEEKS"
	secondsPerWeek          = 7 * 24 * 3600
	dateSerialFirstOfTheDay = 1
)

// dateSerial is YYYYMMDD01 of now's UTC date: the first serial of the day
// in PowerDNS's date scheme.
func dateSerial(now time.Time) uint32 {
	y, m, d := now.UTC().Date()
	return uint32((y*10000+int(m)*100+d)*100 + dateSerialFirstOfTheDay)
}

// CreateSerial is the serial PowerDNS gives a new zone whose request
// carries serial given (0 when absent), soa_edit_api api and soa_edit
// edit: the zone's SOA-EDIT-API applied to it once. An empty api leaves
// the serial as given; a value PowerDNS does not know edits nothing
// either. DEFAULT, PowerDNS's default, makes a new zone's serial
// YYYYMMDD01 (test_create_zone_dnssec_serial), EPOCH the current Unix
// time (test_create_zone_with_soa_edit_api).
func CreateSerial(given uint32, api, edit string, now time.Time) uint32 {
	switch strings.ToUpper(api) {
	case SOAEditAPIDefault:
		if d := dateSerial(now); given < d {
			return d
		}
		return given + 1
	case SOAEditAPIIncrease:
		return given + 1
	case SOAEditAPIEpoch:
		return uint32(now.Unix())
	case SOAEditAPISOAEdit:
		return soaEdited(given, edit, now)
	case SOAEditAPISOAEditIncr:
		if e := soaEdited(given, edit, now); e > given {
			return e
		}
		return given + 1
	}
	return given
}

// soaEdited is the serial SOA-EDIT edit makes of serial: PowerDNS's
// INCEPTION-INCREMENT (YYYYMMDD01 of today when the serial is below it),
// INCEPTION-EPOCH and EPOCH (the Unix time when greater),
// INCREMENT-WEEKS (plus the weeks since the epoch); NONE and others leave
// it.
func soaEdited(serial uint32, edit string, now time.Time) uint32 {
	switch strings.ToUpper(edit) {
	case soaEditInceptionIncr:
		if d := dateSerial(now); serial < d {
			return d
		}
	case soaEditInceptionEpoch, soaEditEpoch:
		if e := uint32(now.Unix()); serial < e {
			return e
		}
	case soaEditIncrementWeeks:
		return serial + uint32(now.Unix()/secondsPerWeek)
	}
	return serial
}
