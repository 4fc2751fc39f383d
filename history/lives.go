package history

// A zone name can be deleted and created again, by another tenant. The
// Log keeps, for each zone, the Seq its current life began at (Born):
// its latest zone.created or zone.imported entry, or the zone.adopted
// entry that followed its deletion. A front end shows a token limited
// to some zones only the entries of their current lives, so that a
// zone's new owner does not read what the old one did.

// noteLife carries the zones' lives forward past e (whose Seq is set).
// l.mu is held (or Open is loading).
func (l *Log) noteLife(e Entry) {
	k := l.key(e.Zone, e.View)
	z := l.zones[k]
	switch e.Type {
	case ZoneDeleted:
		z.ended = true
	case ZoneCreated, ZoneImported:
		z.born, z.ended = e.Seq, false
	case ZoneAdopted:
		if z.ended {
			z.born = e.Seq
		}
		z.ended = false
	default:
		return
	}
	put(l.zones, k, z)
}

// Born returns the Seq of the first entry of the zone's current life
// (see above); entries before it are of an earlier zone of the same
// name. It is 0 when the history holds no start of a life of the zone.
func (l *Log) Born(zone, view string) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.zones[l.key(zone, view)].born
}
