package zonemodel

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e's JSON to b: the bytes json.Marshal(e) gives
// (FuzzChangeEntryJSON holds the two together), written without
// reflection and without the intermediate copies of json.Marshal and of
// time.Time's MarshalJSON, since the history encodes every entry on the
// request's path. Where json.Marshal fails (a time whose year is outside
// [0,9999] or whose zone is 24 hours or more away) it returns b
// unchanged and json.Marshal's error.
func (e ChangeEntry) AppendJSON(b []byte) ([]byte, error) {
	n0 := len(b)
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"time":"`...)
	t0 := len(b)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	if !strictRFC3339(b[t0:]) {
		e.rec = nil
		_, err := json.Marshal(e)
		return b[:n0], err
	}
	b = append(b, `","zone":`...)
	b = appendJSONString(b, e.Zone)
	if e.View != "" {
		b = append(b, `,"view":`...)
		b = appendJSONString(b, e.View)
	}
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, e.Source)
	if e.Identity != "" {
		b = append(b, `,"identity":`...)
		b = appendJSONString(b, e.Identity)
	}
	if e.Frontend != "" {
		b = append(b, `,"frontend":`...)
		b = appendJSONString(b, e.Frontend)
	}
	if e.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendJSONString(b, e.RequestID)
	}
	if e.SerialBefore != nil {
		b = append(b, `,"serial_before":`...)
		b = strconv.AppendUint(b, uint64(*e.SerialBefore), 10)
	}
	if e.SerialAfter != nil {
		b = append(b, `,"serial_after":`...)
		b = strconv.AppendUint(b, uint64(*e.SerialAfter), 10)
	}
	if len(e.Added) > 0 {
		b = append(b, `,"added":`...)
		b = appendChangeRRsetsJSON(b, e.Added)
	}
	if len(e.Removed) > 0 {
		b = append(b, `,"removed":`...)
		b = appendChangeRRsetsJSON(b, e.Removed)
	}
	return append(b, '}'), nil
}

// strictRFC3339 reports whether ts, a time as AppendFormat writes it in
// time.RFC3339Nano, is one time.Time's MarshalJSON accepts: a year of
// four digits and a zone less than 24 hours away.
func strictRFC3339(ts []byte) bool {
	if len(ts) < len("2006-01-02T15:04:05Z") || ts[4] != '-' {
		return false
	}
	if ts[len(ts)-1] == 'Z' {
		return true
	}
	c := ts[len(ts)-len("Z07:00")]
	h := ts[len(ts)-len("07:00"):]
	return !('0' <= c && c <= '9') && 10*(h[0]-'0')+(h[1]-'0') < 24
}

func appendChangeRRsetsJSON(b []byte, sets []ChangeRRset) []byte {
	b = append(b, '[')
	for i, s := range sets {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, s.Name)
		b = append(b, `,"type":`...)
		b = appendJSONString(b, s.Type)
		b = append(b, `,"ttl":`...)
		b = strconv.AppendUint(b, uint64(s.TTL), 10)
		b = append(b, `,"records":`...)
		if s.Records == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, r := range s.Records {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, r)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONString appends s as encoding/json writes a string (HTML
// escaping on, as json.Marshal): <, > and & and the control characters
// escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
