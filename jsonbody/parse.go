package jsonbody

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// MaxDepth is encoding/json's nesting limit: a deeper document is not
// valid for it, so it is not for Parse either.
const MaxDepth = 10000

// Body is a request body parsed once, for the checks that precede the
// decode (a front end's schema) and for the decode itself (Decode).
type Body struct {
	raw []byte
	// Valid is true when the body is exactly one JSON value (surrounded by
	// whitespace only) nested at most MaxDepth deep, as json.Valid tells.
	Valid bool
	// Value is the body as encoding/json decodes it into an any with
	// UseNumber (maps, slices, strings, json.Number, bools, nil): what a
	// schema validator takes. Only set when Valid.
	Value any
	// Dup is true when a key appears twice in one object (keys compared
	// as encoding/json matches struct fields: ignoring case); DupKey is
	// the first such key (possibly ""), DupWhere the JSON Pointer of that
	// object ("(body)" for the top level).
	Dup              bool
	DupKey, DupWhere string
}

// Parse parses a request body in one pass: validity, the generic value
// and the first duplicate key. encoding/json keeps the last of duplicate
// keys silently, so a body such as {"zoneName":"a","zoneName":"b"} would
// otherwise be read as one of its meanings. The Body keeps data, which
// the caller must not change while it uses the Body.
func Parse(data []byte) Body {
	p := jsonParser{data: data}
	p.space()
	v, ok := p.value()
	p.space()
	if !ok || p.pos != len(p.data) {
		return Body{raw: data}
	}
	return Body{raw: data, Valid: true, Value: v, Dup: p.dup, DupKey: p.dupKey, DupWhere: p.dupWhere}
}

// DuplicateKey returns the first key that appears twice in one JSON object
// of data, with the JSON Pointer of that object, or ok false when there is
// none or data is not valid JSON.
func DuplicateKey(data []byte) (key, where string, ok bool) {
	b := Parse(data)
	return b.DupKey, b.DupWhere, b.Dup
}

// jsonParser is a recursive-descent parser of RFC 8259 JSON that accepts
// exactly what encoding/json's scanner accepts (bytes above 0x7F in
// strings included, unchecked).
type jsonParser struct {
	data []byte
	pos  int
	path []pathSeg // where the parser is, for dupWhere

	dup              bool
	dupKey, dupWhere string
}

// keySet holds an object's keys for the duplicate check: inline while
// the object is small (request objects have a handful of members), a map
// of the folded keys beyond.
type keySet struct {
	small [8]string
	n     int
	m     map[string]bool
}

// add adds k and reports whether no key equal to it under strings.ToLower
// was there.
func (s *keySet) add(k string) bool {
	if s.m != nil {
		f := strings.ToLower(k)
		if s.m[f] {
			return false
		}
		s.m[f] = true
		return true
	}
	for _, x := range s.small[:s.n] {
		if zonemodel.FoldEqual(x, k) {
			return false
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = k
		s.n++
		return true
	}
	s.m = make(map[string]bool, 2*len(s.small))
	for _, x := range s.small {
		s.m[strings.ToLower(x)] = true
	}
	s.m[strings.ToLower(k)] = true
	return true
}

// pathSeg is one step of a JSON Pointer: an object member or an array
// index.
type pathSeg struct {
	key   string
	index int
	isKey bool
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (any, bool) {
	if p.pos >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, false
}

func (p *jsonParser) literal(s string) bool {
	if len(p.data)-p.pos < len(s) || string(p.data[p.pos:p.pos+len(s)]) != s {
		return false
	}
	p.pos += len(s)
	return true
}

func (p *jsonParser) object() (any, bool) {
	if len(p.path) >= MaxDepth {
		return nil, false
	}
	p.pos++ // {
	m := map[string]any{}
	var seen keySet // folded keys, for the duplicate check
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, true
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, false
		}
		kv, ok := p.str()
		if !ok {
			return nil, false
		}
		k := kv.(string)
		if !p.dup && !seen.add(k) {
			p.dup, p.dupKey, p.dupWhere = true, k, p.pointer()
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		p.space()
		p.path = append(p.path, pathSeg{key: k, isKey: true})
		v, ok := p.value()
		p.path = p.path[:len(p.path)-1]
		if !ok {
			return nil, false
		}
		m[k] = v
		switch done, ok := p.next('}'); {
		case !ok:
			return nil, false
		case done:
			return m, true
		}
	}
}

func (p *jsonParser) array() (any, bool) {
	if len(p.path) >= MaxDepth {
		return nil, false
	}
	p.pos++ // [
	a := []any{}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, true
	}
	for i := 0; ; i++ {
		p.space()
		p.path = append(p.path, pathSeg{index: i})
		v, ok := p.value()
		p.path = p.path[:len(p.path)-1]
		if !ok {
			return nil, false
		}
		a = append(a, v)
		switch done, ok := p.next(']'); {
		case !ok:
			return nil, false
		case done:
			return a, true
		}
	}
}

// next reads what follows a member of an object or an element of an
// array: a comma (another follows), or the closing bracket close (done);
// anything else is invalid (not ok).
func (p *jsonParser) next(close byte) (done, ok bool) {
	p.space()
	if p.pos >= len(p.data) {
		return false, false
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, true
	case close:
		p.pos++
		return true, true
	default:
		return false, false
	}
}

// str parses a string. Without escapes and with valid UTF-8 the bytes are
// the string; otherwise encoding/json unquotes the literal, so escapes
// and invalid UTF-8 (replaced by U+FFFD) come out exactly as it decodes
// them.
func (p *jsonParser) str() (any, bool) {
	start := p.pos
	p.pos++ // "
	plain, ascii := true, true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			lit := p.data[start:p.pos]
			if plain && (ascii || utf8.Valid(lit)) {
				if v, ok := internedJSON[string(lit[1:len(lit)-1])]; ok {
					return v, true
				}
				return string(lit[1 : len(lit)-1]), true
			}
			var s string
			if err := json.Unmarshal(lit, &s); err != nil {
				return nil, false
			}
			return s, true
		case c == '\\':
			plain = false
			p.pos++
			if p.pos >= len(p.data) {
				return nil, false
			}
			switch p.data[p.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos++
			case 'u':
				p.pos++
				for range 4 {
					if p.pos >= len(p.data) || !isHex(p.data[p.pos]) {
						return nil, false
					}
					p.pos++
				}
			default:
				return nil, false
			}
		case c < 0x20:
			return nil, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			p.pos++
		}
	}
	return nil, false
}

// internedJSON holds, ready boxed, the strings a request body repeats
// for every element (the API's keys, operations and common record
// types), so that a 1,000-change batch does not allocate them thousands
// of times; the lookup itself allocates nothing.
var internedJSON = func() map[string]any {
	m := map[string]any{}
	for _, s := range []string{
		"changes", "op", "name", "type", "value", "values", "ttl", "priority",
		"add", "remove", "replace", "delete", "@",
		"A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "PTR", "SPF",
		"a", "aaaa", "cname", "mx", "txt", "ns", "srv", "caa", "ptr",
	} {
		m[s] = s
	}
	return m
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number parses -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? into a
// json.Number holding its text.
func (p *jsonParser) number() (any, bool) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.pos]; {
	case c == '0':
		p.pos++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if !p.digits() {
			return nil, false
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return nil, false
		}
	}
	return json.Number(p.data[start:p.pos]), true
}

// digits skips [0-9]* and reports whether there was at least one.
func (p *jsonParser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// pointer is the JSON Pointer of the value being parsed, "(body)" at the
// top level.
func (p *jsonParser) pointer() string {
	if len(p.path) == 0 {
		return "(body)"
	}
	var sb strings.Builder
	for _, s := range p.path {
		sb.WriteByte('/')
		if s.isKey {
			sb.WriteString(escapePointer(s.key))
		} else {
			sb.WriteString(itoa(s.index))
		}
	}
	return sb.String()
}

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
