package rndc

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ZoneConfig is a zone statement as `rndc showzone` prints it, e.g.
//
//	zone "example.com" { type primary; file "/z/example.com.zone"; allow-update { key "k"; }; };
//
// split into its clauses in the order named printed them. Each clause keeps
// its value as named wrote it, so a statement parsed, changed in one clause
// and rendered again (Block) says everything else exactly as before: the
// basis of a modzone that keeps every clause it does not change.
type ZoneConfig struct {
	// Name is the zone's name as printed (unquoted).
	Name string
	// Extra holds the words between the name and the block, e.g. a class
	// ("IN") or `in view "x"`, as printed; usually empty.
	Extra string
	// Clauses are the options inside the block, in order.
	Clauses []Clause
}

// Clause is one option of a zone statement: its keyword and the text after
// it up to (not including) the terminating ';', e.g. Name "allow-update",
// Value `{ key "k"; }`.
type Clause struct {
	Name  string
	Value string
}

// maxZoneConfigLength bounds the text ParseZoneConfig accepts.
const maxZoneConfigLength = 1 << 20

// ParseZoneConfig parses one zone statement as printed by showzone. It
// fails on anything that is not a single brace-balanced `zone "name" ...
// { clause; ... };` statement. It is one scanner loop of a little over
// 80 lines (quotes, braces, clause ends share its state).
func ParseZoneConfig(text string) (*ZoneConfig, error) {
	if len(text) > maxZoneConfigLength {
		return nil, errors.New("zone statement too long")
	}
	toks, err := ztokenize(text)
	if err != nil {
		return nil, err
	}
	if len(toks) < 4 || toks[0].text != "zone" || toks[0].kind != ztWord {
		return nil, errors.New("not a zone statement: it must start with 'zone'")
	}
	if toks[1].kind != ztWord && toks[1].kind != ztString {
		return nil, errors.New("zone statement has no zone name")
	}
	zc := &ZoneConfig{Name: toks[1].text}
	i := 2
	var extra []string
	for i < len(toks) && toks[i].kind != ztOpen {
		if toks[i].kind != ztWord && toks[i].kind != ztString {
			return nil, fmt.Errorf("unexpected %q before the zone's block", toks[i].raw)
		}
		extra = append(extra, toks[i].raw)
		i++
	}
	zc.Extra = strings.Join(extra, " ")
	if i >= len(toks) {
		return nil, errors.New("zone statement has no block")
	}
	// toks[i] is the block's '{'. Clauses run to the matching '}'.
	i++
	for {
		if i >= len(toks) {
			return nil, errors.New("zone statement has unbalanced braces")
		}
		if toks[i].kind == ztClose {
			break
		}
		if toks[i].kind == ztSemi { // stray ';'
			i++
			continue
		}
		if toks[i].kind != ztWord {
			return nil, fmt.Errorf("expected an option name, got %q", toks[i].raw)
		}
		name := toks[i].text
		start := i + 1
		depth := 0
		j := start
		for ; j < len(toks); j++ {
			switch toks[j].kind {
			case ztOpen:
				depth++
			case ztClose:
				depth--
			}
			if depth < 0 {
				return nil, fmt.Errorf("option %s is not terminated by ';'", name)
			}
			if depth == 0 && toks[j].kind == ztSemi {
				break
			}
		}
		if j >= len(toks) {
			return nil, fmt.Errorf("option %s is not terminated by ';'", name)
		}
		value := ""
		if j > start {
			value = strings.TrimSpace(text[toks[start].pos:toks[j].pos])
		}
		zc.Clauses = append(zc.Clauses, Clause{Name: name, Value: value})
		i = j + 1
	}
	// After the block's '}': an optional ';' and nothing else.
	i++
	if i < len(toks) && toks[i].kind == ztSemi {
		i++
	}
	if i != len(toks) {
		return nil, fmt.Errorf("unexpected %q after the zone statement", toks[i].raw)
	}
	return zc, nil
}

// Get returns the value of the first clause called name.
func (z *ZoneConfig) Get(name string) (string, bool) {
	for _, c := range z.Clauses {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

// Type returns the value of the type clause ("primary", "secondary", ...),
// with BIND's old names master and slave mapped to primary and secondary.
func (z *ZoneConfig) Type() string {
	t, _ := z.Get("type")
	switch t {
	case "master":
		return "primary"
	case "slave":
		return "secondary"
	}
	return t
}

// Set replaces the value of the clause called name, or appends the clause
// when the statement has none.
func (z *ZoneConfig) Set(name, value string) {
	for i, c := range z.Clauses {
		if c.Name == name {
			z.Clauses[i].Value = value
			return
		}
	}
	z.Clauses = append(z.Clauses, Clause{Name: name, Value: value})
}

// Remove deletes every clause called name.
func (z *ZoneConfig) Remove(name string) {
	out := z.Clauses[:0]
	for _, c := range z.Clauses {
		if c.Name != name {
			out = append(out, c)
		}
	}
	z.Clauses = out
}

// Block renders the statement's block, e.g. `{ type primary; file "x"; };`,
// the form addzone and modzone take.
func (z *ZoneConfig) Block() string {
	var b strings.Builder
	b.WriteString("{ ")
	for _, c := range z.Clauses {
		b.WriteString(c.Name)
		if c.Value != "" {
			b.WriteString(" ")
			b.WriteString(c.Value)
		}
		b.WriteString("; ")
	}
	b.WriteString("};")
	return b.String()
}

// String renders the whole statement as showzone prints it.
func (z *ZoneConfig) String() string {
	s := "zone " + quoteString(z.Name) + " "
	if z.Extra != "" {
		s += z.Extra + " "
	}
	return s + z.Block()
}

// ParseList splits a braced list value such as `{ 192.0.2.1 port 53; key
// "k"; !10.0.0.0/8; };` into its elements, each as written (trimmed, no
// ';'). A value that is not a braced list is an error.
func ParseList(value string) ([]string, error) {
	toks, err := ztokenize(value)
	if err != nil {
		return nil, err
	}
	if len(toks) < 2 || toks[0].kind != ztOpen || toks[len(toks)-1].kind != ztClose {
		return nil, fmt.Errorf("%q is not a braced list", value)
	}
	var out []string
	depth, start := 0, -1
	for i := 1; i < len(toks)-1; i++ {
		t := toks[i]
		switch t.kind {
		case ztOpen:
			depth++
		case ztClose:
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("%q has unbalanced braces", value)
			}
		}
		if start < 0 && t.kind != ztSemi {
			start = i
		}
		if depth == 0 && t.kind == ztSemi {
			if start >= 0 {
				out = append(out, strings.TrimSpace(value[toks[start].pos:t.pos]))
			}
			start = -1
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%q has unbalanced braces", value)
	}
	if start >= 0 {
		return nil, fmt.Errorf("%q: list element not terminated by ';'", value)
	}
	return out, nil
}

// RenderList renders elements as a braced list, `{ a; b; }`.
func RenderList(elems []string) string {
	if len(elems) == 0 {
		return "{ }"
	}
	return "{ " + strings.Join(elems, "; ") + "; }"
}

// Words splits an element of a list (or any clause value) into its words:
// quoted strings come back unquoted, braces and ';' as themselves.
func Words(s string) ([]string, error) {
	toks, err := ztokenize(s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.text
	}
	return out, nil
}

// quoteString renders s as a named.conf string.
func quoteString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// QuoteString renders s as a quoted named.conf string, escaping '\' and
// '"'.
func QuoteString(s string) string { return quoteString(s) }

type ztKind int

const (
	ztWord ztKind = iota
	ztString
	ztOpen
	ztClose
	ztSemi
)

type ztoken struct {
	kind ztKind
	text string // unquoted text of strings
	raw  string
	pos  int // byte offset in the input
}

// tokenize splits named.conf text into words, quoted strings, braces and
// semicolons, skipping whitespace and comments (#, //, /* */).
func ztokenize(s string) ([]ztoken, error) {
	var toks []ztoken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || (c == '/' && i+1 < len(s) && s[i+1] == '/'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("unterminated comment")
			}
			i += end + 4
		case c == '{':
			toks = append(toks, ztoken{kind: ztOpen, text: "{", raw: "{", pos: i})
			i++
		case c == '}':
			toks = append(toks, ztoken{kind: ztClose, text: "}", raw: "}", pos: i})
			i++
		case c == ';':
			toks = append(toks, ztoken{kind: ztSemi, text: ";", raw: ";", pos: i})
			i++
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("unterminated string")
			}
			toks = append(toks, ztoken{kind: ztString, text: b.String(), raw: s[i : j+1], pos: i})
			i = j + 1
		case c < 0x20 || c == 0x7f:
			return nil, fmt.Errorf("control character %q", c)
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n{};\"", rune(s[j])) && s[j] >= 0x20 && s[j] != 0x7f {
				if s[j] == '#' || (s[j] == '/' && j+1 < len(s) && (s[j+1] == '/' || s[j+1] == '*')) {
					break
				}
				j++
			}
			toks = append(toks, ztoken{kind: ztWord, text: s[i:j], raw: s[i:j], pos: i})
			i = j
		}
	}
	return toks, nil
}

// ShowZoneConfig runs "showzone <zone>" and parses the statement. An
// unknown zone gives an error for which IsNotFound is true.
func (c *Client) ShowZoneConfig(ctx context.Context, zone string) (*ZoneConfig, error) {
	text, err := c.ShowZone(ctx, zone)
	if err != nil {
		return nil, err
	}
	zc, err := ParseZoneConfig(text)
	if err != nil {
		return nil, fmt.Errorf("rndc showzone: parsing %q: %w", text, err)
	}
	return zc, nil
}

// ModZone runs "modzone <zone> <config>", replacing the configuration of a
// zone that was added with addzone. config is a block such as ZoneConfig's
// Block renders; like AddZone, ModZone only checks that it is one
// brace-balanced block on one line. named checks the rest: a refused
// change leaves the zone as it was.
func (c *Client) ModZone(ctx context.Context, zone, config string) (string, error) {
	if err := ValidZoneName(zone); err != nil {
		return "", fmt.Errorf("rndc modzone: %w", err)
	}
	config = strings.TrimSpace(config)
	if err := checkZoneBlock(config); err != nil {
		return "", fmt.Errorf("rndc modzone: %w", err)
	}
	resp, err := c.Command(ctx, "modzone "+zone+" "+config)
	return text(resp), err
}

// Retransfer runs "retransfer <zone>": a secondary zone transfers again
// from its primaries. On a primary zone named refuses it (Err "failure",
// Text "retransfer: inappropriate zone type: primary"); IsWrongZoneType
// is then true.
func (c *Client) Retransfer(ctx context.Context, zone string) (string, error) {
	resp, err := c.zoneCommand(ctx, "retransfer", zone)
	return text(resp), err
}

// IsWrongZoneType reports whether err is named refusing a command because
// of the zone's type ("inappropriate zone type", e.g. retransfer of a
// primary zone).
func IsWrongZoneType(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.Contains(e.Text, "inappropriate zone type")
}
