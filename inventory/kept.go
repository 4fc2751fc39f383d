package inventory

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// What the inventory keeps for the next start (Save, Load): the zones of
// a snapshot and where each comes from, so that the first list after a
// start answers without waiting for named's statistics channel (seconds
// at 100,000 zones) and no zone's source is asked again. A text of one
// line per zone, some 40 bytes a zone:
//
//	zoneapi-inventory 1
//	taken <unix nanoseconds>
//	view <view>                                  (one line per view)
//	<name> TAB <view> TAB <type> TAB <serial or -> TAB <source or ->
//	end <number of zones>
//
// Fields escape backslash, tab and newline (\\, \t, \n). The end line
// tells a whole text from a cut one; Save writes it atomically anyway.

const keptHeader = "zoneapi-inventory 1"

var (
	keptEscape   = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`)
	keptUnescape = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n")
)

// encodeKept renders the zones of snap that Forget did not drop.
func encodeKept(snap *Snapshot) []byte {
	var b bytes.Buffer
	b.Grow(64 + 48*len(snap.rs))
	b.WriteString(keptHeader + "\n")
	fmt.Fprintf(&b, "taken %d\n", snap.Taken.UnixNano())
	for _, v := range snap.Views {
		b.WriteString("view " + keptEscape.Replace(v) + "\n")
	}
	n := 0
	field := func(s string) {
		if s == "" {
			s = "-"
		}
		b.WriteString(keptEscape.Replace(s))
	}
	snap.Each(func(z *Zone) {
		n++
		field(z.Name)
		b.WriteByte('\t')
		field(z.View)
		b.WriteByte('\t')
		field(z.Type)
		b.WriteByte('\t')
		if z.HasSerial {
			b.WriteString(strconv.FormatUint(uint64(z.Serial), 10))
		} else {
			b.WriteByte('-')
		}
		b.WriteByte('\t')
		field(z.Source)
		b.WriteByte('\n')
	})
	fmt.Fprintf(&b, "end %d\n", n)
	return b.Bytes()
}

// decodeKept reads what encodeKept wrote: a Kept snapshot.
func decodeKept(data []byte) (*Snapshot, error) {
	text := string(data)
	header, text, _ := strings.Cut(text, "\n")
	if header != keptHeader {
		return nil, fmt.Errorf("kept inventory: not %q", keptHeader)
	}
	line, text, _ := strings.Cut(text, "\n")
	ns, ok := strings.CutPrefix(line, "taken ")
	nanos, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil {
		return nil, errors.New("kept inventory: no taken line")
	}
	snap := &Snapshot{Taken: time.Unix(0, nanos), Kept: true}
	// The same strings for every zone's view, type and source.
	intern := map[string]string{}
	in := func(s string) string {
		if strings.Contains(s, `\`) {
			s = keptUnescape.Replace(s)
		}
		if s == "-" {
			return ""
		}
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	var zones []Zone
	for {
		var line string
		var more bool
		line, text, more = strings.Cut(text, "\n")
		if !more {
			return nil, errors.New("kept inventory: cut short (no end line)")
		}
		if v, ok := strings.CutPrefix(line, "view "); ok {
			snap.Views = append(snap.Views, in(v))
			continue
		}
		if n, ok := strings.CutPrefix(line, "end "); ok {
			if n != strconv.Itoa(len(zones)) || text != "" {
				return nil, fmt.Errorf("kept inventory: %d zones, the end line says %s", len(zones), n)
			}
			break
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("kept inventory: bad line %q", line)
		}
		name := f[0]
		if strings.Contains(name, `\`) {
			name = keptUnescape.Replace(name)
		}
		z := Zone{Name: name, View: in(f[1]), Type: in(f[2]), Source: in(f[4])}
		if f[3] != "-" {
			n, err := strconv.ParseUint(f[3], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("kept inventory: bad serial in %q", line)
			}
			z.Serial, z.HasSerial = uint32(n), true
		}
		if k := len(zones); k > 0 && compareZones(&zones[k-1], &z) >= 0 {
			return nil, fmt.Errorf("kept inventory: %s/%s out of order", z.Name, z.View)
		}
		zones = append(zones, z)
	}
	snap.rows = compact(zones)
	return snap, nil
}

// compareRow compares row j of r with z, as compareZones.
func compareRow(r *rows, j int, z *Zone) int {
	if c := strings.Compare(r.rs[j].name, z.Name); c != 0 {
		return c
	}
	return strings.Compare(r.strs[r.rs[j].view], z.View)
}

// compareZones orders zones by name, then view.
func compareZones(a, b *Zone) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.View, b.View)
}

// loadKept publishes the snapshot Load returns, once, when there is none
// yet, with the sources it tells; nil when there is nothing kept (or it
// cannot be read, which is logged).
func (inv *Inventory) loadKept() *Snapshot {
	if inv.Load == nil {
		return nil
	}
	inv.loadM.Lock()
	defer inv.loadM.Unlock()
	inv.mu.Lock()
	done, snap := inv.loaded, inv.snap
	inv.loaded = true
	inv.mu.Unlock()
	if done || snap != nil {
		return snap
	}
	data, ok, err := inv.Load()
	if err != nil {
		inv.log().Warn("reading the zone inventory kept by the last run failed; asking named", zap.Error(err))
		return nil
	}
	if !ok {
		return nil
	}
	kept, err := decodeKept(data)
	if err != nil {
		inv.log().Warn("the zone inventory kept by the last run is unreadable; asking named", zap.Error(err))
		return nil
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.snap != nil {
		// A refresh landed meanwhile.
		return inv.snap
	}
	inv.snapGen++
	kept.Gen = inv.snapGen
	inv.savedSum = sha256.Sum256(data)
	inv.snap = kept
	return kept
}

// save keeps the snapshot (Save) in the background, one save at a time:
// one published meanwhile is saved when it ends. inv.mu is held.
func (inv *Inventory) save() {
	if inv.Save == nil {
		return
	}
	if inv.saving {
		inv.dirty = true
		return
	}
	inv.saving = true
	go func() {
		for {
			inv.mu.Lock()
			snap := inv.snap
			inv.dirty = false
			inv.mu.Unlock()
			data := encodeKept(snap)
			sum := sha256.Sum256(data)
			inv.mu.Lock()
			same := sum == inv.savedSum
			inv.mu.Unlock()
			if !same {
				if err := inv.Save(data); err != nil {
					inv.log().Warn("keeping the zone inventory for the next start failed", zap.Error(err))
				} else {
					inv.mu.Lock()
					inv.savedSum = sum
					inv.mu.Unlock()
				}
			}
			inv.mu.Lock()
			if !inv.dirty {
				inv.saving = false
				inv.mu.Unlock()
				return
			}
			inv.mu.Unlock()
		}
	}()
}
