package history

import "strings"

// zoneKey is a zone's key in the serial map.
func zoneKey(zone, view string) string {
	return strings.ToLower(strings.TrimSuffix(zone, ".")) + "/" + view
}

// recentExternal is how many of a zone's latest external serials the
// Log keeps for EnqueueChanges.
const recentExternal = 16

// noteSerial remembers the zone's serial after e in serials and, for an
// external entry, in ext (both by zoneKey).
func noteSerial(serials map[string]uint32, ext map[string][]uint32, e Entry) {
	k := zoneKey(e.Zone, e.View)
	switch {
	case e.Type == ZoneDeleted:
		delete(serials, k)
		delete(ext, k)
	case e.SerialAfter != nil:
		serials[k] = *e.SerialAfter
		if e.Source == SourceExternal {
			x := append(ext[k], *e.SerialAfter)
			if len(x) > recentExternal {
				x = append(x[:0:0], x[len(x)-recentExternal:]...)
			}
			ext[k] = x
		}
	}
}

// recordedAlready reports whether e, an entry EnqueueChanges was given,
// is a change recorded already, judged by the zones' serials and ext as
// noteSerial keeps them.
func recordedAlready(serials map[string]uint32, ext map[string][]uint32, e Entry) bool {
	if e.SerialBefore == nil || e.SerialAfter == nil {
		return false
	}
	k := zoneKey(e.Zone, e.View)
	if e.Source == SourceExternal {
		last, ok := serials[k]
		return ok && last != *e.SerialBefore
	}
	if *e.SerialBefore == *e.SerialAfter {
		return false
	}
	for _, s := range ext[k] {
		if s == *e.SerialAfter {
			return true
		}
	}
	return false
}

// unrecorded returns the entries of es that recordedAlready keeps, each
// judged after those before it. l.mu is held.
func (l *Log) unrecorded(es []Entry) []Entry {
	serials, ext := map[string]uint32{}, map[string][]uint32{}
	for _, e := range es {
		k := zoneKey(e.Zone, e.View)
		if s, ok := l.serials[k]; ok {
			serials[k] = s
		}
		if x, ok := l.extRecent[k]; ok {
			ext[k] = append([]uint32(nil), x...)
		}
	}
	out := es[:0:0]
	for _, e := range es {
		if !recordedAlready(serials, ext, e) {
			out = append(out, e)
			noteSerial(serials, ext, e)
		}
	}
	return out
}

// Baseline sets the zone's last serial when the history has none (a zone
// managed before the history was on, or whose entries retention dropped
// before state.json kept them), so that the changes after it are
// recorded. It is kept in memory only: the next entry of the zone makes
// it durable.
func (l *Log) Baseline(zone, view string, serial uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := zoneKey(zone, view)
	if _, ok := l.serials[k]; !ok {
		l.serials[k] = serial
		if _, ok := l.written[k]; !ok {
			l.written[k] = serial
		}
	}
}

// LastSerial returns the zone's serial after its last entry appended (or
// enqueued) that has one; ok is false when it has none, or the zone's
// last entry is its deletion.
func (l *Log) LastSerial(zone, view string) (serial uint32, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	serial, ok = l.serials[zoneKey(zone, view)]
	return serial, ok
}
