package inventory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// statsZone is the part of a zone of /json/v1/zones the inventory reads.
type statsZone struct {
	Name   string          `json:"name"`
	Class  string          `json:"class"`
	Serial json.RawMessage `json:"serial"`
	Type   string          `json:"type"`
}

// Parse reads the statistics channel's /json/v1/zones: the zones of class
// IN of every view but _bind, without built-in zones, sorted by name then
// view, and the views.
func Parse(body []byte) ([]Zone, []string, error) {
	return ParseFrom(bytes.NewReader(body), 0)
}

// ParseFrom is Parse of the answer read from r as it comes, zone by zone:
// what it holds is the zones it returns (about n, a hint of their number
// for the slice: 0 for none) and a zone's JSON at a time, where Parse of
// the whole answer read first held the answer (some 17 MB at 100,000
// zones), its decoding (as much again) and the zones together.
func ParseFrom(r io.Reader, n int) ([]Zone, []string, error) {
	p := parser{dec: json.NewDecoder(r), types: map[string]string{}}
	if n > 0 {
		p.zones = make([]Zone, 0, n+n/64+16)
	}
	if err := p.top(); err != nil {
		return nil, nil, fmt.Errorf("reading named's statistics: %w", err)
	}
	if !p.sawViews {
		return nil, nil, errors.New("reading named's statistics: no views in the answer (is it /json/v1/zones?)")
	}
	slices.Sort(p.views)
	slices.SortFunc(p.zones, func(a, b Zone) int { return compareZones(&a, &b) })
	return slices.Clip(p.zones), p.views, nil
}

// parser walks /json/v1/zones token by token: {"views": {view: {"zones":
// [zone, ...]}}}, every other member skipped.
type parser struct {
	dec      *json.Decoder
	zones    []Zone
	views    []string
	types    map[string]string // each type's string shared: they are kept
	sawViews bool
	z        statsZone // the zone being read, reused
}

func (p *parser) delim(want json.Delim) (null bool, err error) {
	t, err := p.dec.Token()
	if err != nil {
		return false, err
	}
	if t == nil {
		return true, nil
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return false, fmt.Errorf("want %q, read %v", want, t)
	}
	return false, nil
}

// key reads an object's member name.
func (p *parser) key() (string, error) {
	t, err := p.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("want a member name, read %v", t)
	}
	return k, nil
}

// skip reads a value whole, without keeping it.
func (p *parser) skip() error {
	depth := 0
	for {
		t, err := p.dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func (p *parser) top() error {
	if null, err := p.delim('{'); err != nil || null {
		return errors.Join(err, errors.New("not an object"))
	}
	for p.dec.More() {
		k, err := p.key()
		if err != nil {
			return err
		}
		if !strings.EqualFold(k, "views") {
			if err := p.skip(); err != nil {
				return err
			}
			continue
		}
		if err := p.viewsObject(); err != nil {
			return err
		}
	}
	if _, err := p.delim('}'); err != nil {
		return err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return errors.New("data after the answer")
	}
	return nil
}

func (p *parser) viewsObject() error {
	null, err := p.delim('{')
	if err != nil {
		return err
	}
	if null {
		// json.Unmarshal sets the views to none: a "views" before
		// this one counts no more.
		p.zones, p.views, p.sawViews = p.zones[:0], p.views[:0], false
		return nil
	}
	// A repeated "views" adds its views to those before, as
	// json.Unmarshal does into its map.
	p.sawViews = true
	for p.dec.More() {
		view, err := p.key()
		if err != nil {
			return err
		}
		if view == "_bind" {
			if err := p.skip(); err != nil {
				return err
			}
			continue
		}
		if !slices.Contains(p.views, view) {
			p.views = append(p.views, view)
		} else {
			// A repeated view replaces the one before, as
			// json.Unmarshal replaces a map's member: last wins.
			p.dropView(view)
		}
		if err := p.viewObject(view); err != nil {
			return err
		}
	}
	_, err = p.delim('}')
	return err
}

func (p *parser) viewObject(view string) error {
	null, err := p.delim('{')
	if err != nil || null {
		return err
	}
	start := len(p.zones)
	for p.dec.More() {
		k, err := p.key()
		if err != nil {
			return err
		}
		if !strings.EqualFold(k, "zones") {
			if err := p.skip(); err != nil {
				return err
			}
			continue
		}
		// A repeated "zones" replaces the one before (json.Unmarshal
		// decodes a slice afresh), null with none: the view's zones are
		// those from start on.
		p.zones = p.zones[:start]
		null, err := p.delim('[')
		if err != nil {
			return err
		}
		if null {
			continue
		}
		for p.dec.More() {
			p.z = statsZone{Serial: p.z.Serial[:0]}
			if err := p.dec.Decode(&p.z); err != nil {
				return err
			}
			p.add(view)
		}
		if _, err := p.delim(']'); err != nil {
			return err
		}
	}
	_, err = p.delim('}')
	return err
}

// add keeps p.z, a zone of view, unless it is not one of class IN or a
// built-in one.
func (p *parser) add(view string) {
	z := &p.z
	if z.Class != "IN" || z.Type == "builtin" || z.Name == "" {
		return
	}
	typ, ok := p.types[z.Type]
	if !ok {
		typ = z.Type
		p.types[typ] = typ
	}
	zone := Zone{Name: strings.ToLower(strings.TrimSuffix(z.Name, ".")), View: view, Type: typ}
	if zone.Name == "" {
		zone.Name = "."
	}
	if n, err := strconv.ParseInt(string(z.Serial), 10, 64); err == nil && n >= 0 && n <= 1<<32-1 {
		zone.Serial, zone.HasSerial = uint32(n), true
	}
	p.zones = append(p.zones, zone)
}

// dropView forgets the zones of view read so far (a view or its "zones"
// read again replaces them). Named never repeats a member.
func (p *parser) dropView(view string) {
	p.zones = slices.DeleteFunc(p.zones, func(z Zone) bool { return z.View == view })
}
