package zonestore

import (
	"fmt"
	"strconv"
	"strings"
)

// FileBase is the zone's name as it is written in the zone directory's
// file names (<base>.zone, <base>.<kind>.json): the canonical name with
// every byte other than a lower-case letter, digit, '-', '_' or the '.'
// between labels written %XX (upper-case hex), as named writes the zone's
// DNSSEC key files (dnssec-keygen names foo/bar.example's keys
// Kfoo%2Fbar.example.+013+NNNNN). So a '/' in a label (0/25.2.0.192.in-
// addr.arpa) is %2F and never a directory, and the mapping is injective:
// '%' itself is escaped, and a base is decoded by ZoneOfFileBase. The
// root zone (".") is "%2E", which no other name gives (a '.' between
// labels is never escaped). Every name of today's zone directories (no
// '/') keeps its file name.
func FileBase(zone string) string {
	if zone == "." || zone == "" {
		return "%2E"
	}
	return escapeFileName(zone)
}

// keyFilePrefix is the beginning of named's key file names of the zone,
// K<name with its trailing dot>: "K." for the root zone.
func keyFilePrefix(zone string) string {
	if zone == "." || zone == "" {
		return "K."
	}
	return "K" + escapeFileName(zone) + "."
}

func escapeFileName(zone string) string {
	i := 0
	for i < len(zone) && plainFileByte(zone[i]) {
		i++
	}
	if i == len(zone) {
		return zone
	}
	var b strings.Builder
	b.Grow(len(zone) + 8)
	b.WriteString(zone[:i])
	for ; i < len(zone); i++ {
		if c := zone[i]; plainFileByte(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func plainFileByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

// ZoneOfFileBase is the zone whose FileBase is base; ok is false when
// base is no zone's (a bad escape, a byte FileBase escapes, or a name that
// is not canonical), so that a file that no zone would have is skipped.
func ZoneOfFileBase(base string) (zone string, ok bool) {
	if base == "%2E" {
		zone = "."
	} else if !strings.Contains(base, "%") {
		zone = base
	} else {
		var b strings.Builder
		for i := 0; i < len(base); i++ {
			c := base[i]
			if c != '%' {
				b.WriteByte(c)
				continue
			}
			if i+2 >= len(base) || base[i+1] == '+' || base[i+1] == '-' {
				return "", false
			}
			v, err := strconv.ParseUint(base[i+1:i+3], 16, 8)
			if err != nil || plainFileByte(byte(v)) {
				return "", false
			}
			b.WriteByte(byte(v))
			i += 2
		}
		zone = b.String()
	}
	if checkZone(zone) != nil || FileBase(zone) != base {
		return "", false
	}
	return zone, true
}
