package history

import "strings"

// zoneKey is a zone's key in the serial map.
func zoneKey(zone, view string) string {
	return strings.ToLower(strings.TrimSuffix(zone, ".")) + "/" + view
}

// noteSerial remembers the zone's serial after e. l.mu is held.
func (l *Log) noteSerial(e Entry) {
	k := zoneKey(e.Zone, e.View)
	switch {
	case e.Type == ZoneDeleted:
		delete(l.serials, k)
		delete(l.extLast, k)
	case e.SerialAfter != nil:
		l.serials[k] = *e.SerialAfter
		l.extLast[k] = e.Source == SourceExternal
	}
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
	}
}

// RecordedExternally reports whether the zone's last serial is serial and
// came from an external entry: a change made through another updater of
// the process (the external-dns webhook's) whose NOTIFY was handled before
// its own entry was enqueued. That entry is then not enqueued again.
func (l *Log) RecordedExternally(zone, view string, serial uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := zoneKey(zone, view)
	s, ok := l.serials[k]
	return ok && s == serial && l.extLast[k]
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
