package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// writeZonePage answers a page of a zone list (GET /zones, with and
// without all=true) as WriteJSON would, byte for byte, without
// encoding/json's reflection: its encoder was most of such a request's
// CPU in Caddy (0.75 s of the handler's 1.45 s while all=true pages were
// asked for 5 s at 1,000 zones), a third of it compacting each item's
// created time that time.Time's MarshalJSON returned. A page this does
// not write alike (a created time json.Marshal refuses) goes through
// WriteJSON.
func writeZonePage(w http.ResponseWriter, p *apitypes.ZonePage) {
	b, ok := appendZonePage(make([]byte, 0, 256+len(p.Items)*192), p)
	if !ok {
		WriteJSON(w, http.StatusOK, p)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// appendZonePage appends p as json.Marshal encodes it; false when it
// cannot tell that it does (a created time outside what
// time.Time.MarshalJSON accepts).
func appendZonePage(b []byte, p *apitypes.ZonePage) ([]byte, bool) {
	b = append(b, `{"zones":`...)
	if p.Zones == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, z := range p.Zones {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, z)
		}
		b = append(b, ']')
	}
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(p.Count), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.Total), 10)
	b = append(b, `,"items":`...)
	if p.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Items {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendZoneEntry(b, &p.Items[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if p.NextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = appendJSONString(b, p.NextCursor)
	}
	return append(b, '}'), true
}

// appendZoneEntry appends e as json.Marshal encodes it (its fields'
// order and omitempty/omitzero).
func appendZoneEntry(b []byte, e *apitypes.ZoneEntry) ([]byte, bool) {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, e.Name)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, e.Type)
	if !e.Created.IsZero() {
		// time.Time.MarshalJSON: RFC 3339 with nanoseconds, quoted; it
		// fails for a year outside [0, 9999] or an offset of a day or more.
		if y := e.Created.Year(); y < 0 || y > 9999 {
			return b, false
		}
		if _, off := e.Created.Zone(); off <= -24*60*60 || off >= 24*60*60 {
			return b, false
		}
		b = append(b, `,"created":"`...)
		b = e.Created.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if e.View != "" {
		b = append(b, `,"view":`...)
		b = appendJSONString(b, e.View)
	}
	if e.Managed != nil {
		b = append(b, `,"managed":`...)
		b = strconv.AppendBool(b, *e.Managed)
	}
	if e.Source != "" {
		b = append(b, `,"source":`...)
		b = appendJSONString(b, e.Source)
	}
	if e.Serial != nil {
		b = append(b, `,"serial":`...)
		b = strconv.AppendUint(b, uint64(*e.Serial), 10)
	}
	return append(b, '}'), true
}

// appendJSONString appends s quoted as json.Marshal quotes it: as it is
// when it is printable ASCII that needs no escape (a zone's name, type,
// view, source), else through json.Marshal itself (its escapes of
// control characters, of <, > and &, of U+2028 and U+2029 and of
// invalid UTF-8).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
