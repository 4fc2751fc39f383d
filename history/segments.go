package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// load reads the segments, repairs the active one's torn tail and fills
// the in-memory tail.
func (l *Log) load() error {
	names, err := os.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, de := range names {
		first, ok := segmentFirst(de.Name())
		if !ok {
			continue
		}
		l.segs = append(l.segs, segment{first: first, last: first - 1, path: filepath.Join(l.dir, de.Name())})
	}
	// ReadDir sorts by name and names are zero-padded: oldest first.
	if len(l.segs) == 0 {
		return l.newSegment(1)
	}
	upto := l.loadState()
	for i := range l.segs {
		s := &l.segs[i]
		active := i == len(l.segs)-1
		var recent []Entry
		end, err := scan(s.path, 0, func(e Entry, _ int64) bool {
			s.last, s.newest = e.Seq, e.Time
			if e.Seq > upto {
				noteSerial(l.zones, l.extRecent, l.key(e.Zone, e.View), e)
				l.noteLife(e)
			}
			if active {
				recent = append(recent, e)
				if len(recent) > 2*tailEntries {
					recent = append(recent[:0], recent[len(recent)-tailEntries:]...)
				}
			}
			return true
		})
		if err != nil {
			return err
		}
		s.size = end
		if active {
			if len(recent) > tailEntries {
				recent = recent[len(recent)-tailEntries:]
			}
			l.tail = recent
		}
	}
	a := &l.segs[len(l.segs)-1]
	f, err := os.OpenFile(a.path, os.O_RDWR, 0o640)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	// A torn or garbled last line is what a crash during a write leaves:
	// no append of it returned, so it is cut off.
	if fi, err := f.Stat(); err == nil && fi.Size() != a.size {
		if err := f.Truncate(a.size); err != nil {
			f.Close()
			return fmt.Errorf("history: repairing %s: %w", a.path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("history: repairing %s: %w", a.path, err)
		}
	}
	if _, err := f.Seek(a.size, 0); err != nil {
		f.Close()
		return fmt.Errorf("history: %w", err)
	}
	l.f = f
	l.last, l.durable = a.last, a.last
	return nil
}

// state is what the log remembers of the entries before a segment, so
// that retention can drop them: each zone's last serial.
type state struct {
	// Upto is the last Seq the state covers.
	Upto uint64 `json:"upto"`
	// Serials are the zones' serials (by zoneKey) after their last
	// entry up to Upto.
	Serials map[string]uint32 `json:"serials"`
	// Born and Ended are the zones' lives (lives.go) up to Upto.
	Born  map[string]uint64 `json:"born,omitempty"`
	Ended map[string]bool   `json:"ended,omitempty"`
}

const stateFile = "state.json"

// loadState reads the state file into l.zones and returns its Upto.
func (l *Log) loadState() uint64 {
	b, err := os.ReadFile(filepath.Join(l.dir, stateFile))
	if err != nil {
		return 0
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return 0
	}
	for k, v := range st.Serials {
		z := l.zones[k]
		z.serial, z.hasSerial = v, true
		l.zones[k] = z
	}
	for k, v := range st.Born {
		z := l.zones[k]
		z.born = v
		put(l.zones, k, z)
	}
	for k, v := range st.Ended {
		z := l.zones[k]
		z.ended = v
		put(l.zones, k, z)
	}
	return st.Upto
}

// saveState writes the state, covering the entries up to upto,
// atomically. l.mu is held, and every entry up to upto is written to
// the active segment (the entries enqueued and not yet written, those
// of the batch a rotation is about to write among them, are not
// covered). The serials are those the written entries left (zoneState's
// written), not those of the entries enqueued: a state that counted an
// entry whose write then failed, or that a crash lost, made LastSerial
// say after a restart that its change was recorded, and the start's
// catch-up never recorded it. For the same reason the active segment is
// fsynced first: the state must not outlive, after a power loss, the
// entries it covers. Born and Ended may count the enqueued entries:
// Open notes the entries after upto again, in order.
func (l *Log) saveState(upto uint64) error {
	if err := l.f.Sync(); err != nil {
		return err
	}
	st := state{Upto: upto, Serials: map[string]uint32{}, Born: map[string]uint64{}, Ended: map[string]bool{}}
	for k, z := range l.zones {
		if z.hasWritten {
			st.Serials[k] = z.written
		}
		if z.born != 0 {
			st.Born[k] = z.born
		}
		if z.ended {
			st.Ended[k] = true
		}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, stateFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(l.dir, stateFile))
	}
	return err
}

// segmentFirst parses a segment's file name.
func segmentFirst(name string) (uint64, bool) {
	base, ok := cutSuffix(name, ".jsonl")
	if !ok || len(base) != 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(base, 10, 64)
	return n, err == nil && n > 0
}

func cutSuffix(s, suf string) (string, bool) {
	if len(s) < len(suf) || s[len(s)-len(suf):] != suf {
		return s, false
	}
	return s[:len(s)-len(suf)], true
}

// newSegment begins a segment whose first entry will be first, and makes
// it the active one.
func (l *Log) newSegment(first uint64) error {
	path := filepath.Join(l.dir, fmt.Sprintf("%020d.jsonl", first))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := syncDir(l.dir); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		_ = l.f.Sync()
		l.f.Close()
	}
	l.f = f
	l.segs = append(l.segs, segment{first: first, last: first - 1, path: path})
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("history: syncing %s: %w", dir, err)
	}
	return nil
}
