package history

import "strings"

// zoneKey is a zone's key in the serial map.
func zoneKey(zone, view string) string {
	return strings.ToLower(strings.TrimSuffix(zone, ".")) + "/" + view
}

// lastKey is the zone key Log.key built last, with what it was built from.
type lastKey struct{ zone, view, key string }

// key is zoneKey(zone, view), the last one kept: the entries of a burst
// of changes are mostly one zone's, and each entry looks its zone up
// several times (its serials, its life, the serials written), so the key
// is not built (an allocation) again for each. l.mu is held (or Open is
// loading).
func (l *Log) key(zone, view string) string {
	if k := &l.lastKey; k.key != "" && k.zone == zone && k.view == view {
		return k.key
	}
	l.lastKey = lastKey{zone, view, zoneKey(zone, view)}
	return l.lastKey.key
}

// recentExternal is how many of a zone's latest external serials the
// Log keeps for EnqueueChanges.
const recentExternal = 16

// zoneState is what the Log keeps of each zone, by zoneKey, in one map
// (Log.zones): one key string and one slot a zone, where a map for each
// part (the serials, the serials written, the lives) held three of each,
// some 100 bytes a zone more (issue 27: 100,000 zones). A zone with
// nothing kept has no entry.
type zoneState struct {
	// born is the Seq the zone's current life began at (lives.go), 0
	// when the history holds none.
	born uint64
	// serial is the serial after the zone's last entry (hasSerial).
	serial uint32
	// written is the serial as the entries written to the file (and
	// baselines) left it (hasWritten), where serial also counts the
	// entries enqueued: a failed write goes back to it (health.go).
	written               uint32
	hasSerial, hasWritten bool
	// ended: the zone's last life ended with its deletion.
	ended bool
}

// put stores z as k's state, or drops k's entry when z keeps nothing.
func put(zones map[string]zoneState, k string, z zoneState) {
	if z == (zoneState{}) {
		delete(zones, k)
		return
	}
	zones[k] = z
}

// noteSerial remembers the zone's serial after e in zones and, for an
// external entry, in ext (both by zoneKey; k is e's).
func noteSerial(zones map[string]zoneState, ext map[string][]uint32, k string, e Entry) {
	switch {
	case e.Type == ZoneDeleted:
		z := zones[k]
		z.serial, z.hasSerial = 0, false
		put(zones, k, z)
		delete(ext, k)
	case e.SerialAfter != nil:
		z := zones[k]
		z.serial, z.hasSerial = *e.SerialAfter, true
		put(zones, k, z)
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
// noteSerial keeps them (k is e's zone key).
func recordedAlready(zones map[string]zoneState, ext map[string][]uint32, k string, e Entry) bool {
	if e.SerialBefore == nil || e.SerialAfter == nil {
		return false
	}
	if e.Source == SourceExternal {
		z := zones[k]
		return z.hasSerial && z.serial != *e.SerialBefore
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
	zones, ext := map[string]zoneState{}, map[string][]uint32{}
	for _, e := range es {
		k := l.key(e.Zone, e.View)
		if z, ok := l.zones[k]; ok && z.hasSerial {
			zones[k] = zoneState{serial: z.serial, hasSerial: true}
		}
		if x, ok := l.extRecent[k]; ok {
			ext[k] = append([]uint32(nil), x...)
		}
	}
	out := es[:0:0]
	for _, e := range es {
		if k := l.key(e.Zone, e.View); !recordedAlready(zones, ext, k, e) {
			out = append(out, e)
			noteSerial(zones, ext, k, e)
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
	if z := l.zones[k]; !z.hasSerial {
		z.serial, z.hasSerial = serial, true
		if !z.hasWritten {
			z.written, z.hasWritten = serial, true
		}
		l.zones[k] = z
	}
}

// LastSerial returns the zone's serial after its last entry appended (or
// enqueued) that has one; ok is false when it has none, or the zone's
// last entry is its deletion.
func (l *Log) LastSerial(zone, view string) (serial uint32, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	z := l.zones[l.key(zone, view)]
	return z.serial, z.hasSerial
}
