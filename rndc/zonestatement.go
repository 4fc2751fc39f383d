package rndc

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ZoneStatement is a BIND zone statement, the one model of it in this
// module, e.g.
//
//	zone "example.com" { type primary; file "/z/example.com.zone"; allow-update { key "k"; }; };
//
// addzone and modzone are given its block (AddZone, ModZone render it with
// Block); showzone's text is parsed into it (ParseZoneStatement), clauses
// in the order named printed them, so that a statement read, changed in one
// clause and sent back says everything else as named said it.
//
// Values are typed (words, quoted strings and braced lists), never text, so
// nothing a value holds can end its clause or the statement: strings are
// rendered by one quoting function, and a word that is not a plain word
// (it holds a space, a quote, a brace, ';', a comment start or a control
// character) is rendered as a quoted string.
type ZoneStatement struct {
	// Name is the zone's name (unquoted).
	Name string
	// Extra holds the words showzone printed between the name and the
	// block, e.g. a class ("IN") or `in view "x"`; usually empty. String
	// shows it; addzone and modzone are never given it.
	Extra string
	// Clauses are the options inside the block, in order.
	Clauses []Clause
}

// Clause is one option of a zone statement: its keyword and its value, e.g.
// Name "allow-update", Value {List(Value{Word("key"), Quoted("k")})}.
type Clause struct {
	Name  string
	Value Value
}

// Value is a clause's value, or an element of a braced list: terms that
// render separated by spaces, e.g. `192.0.2.1 port 53 key "k"`.
type Value []Term

// TermKind says what a Term is.
type TermKind uint8

// The kinds of terms.
const (
	// WordTerm is a bare word: primary, 192.0.2.0/24, !10.0.0.1, yes.
	WordTerm TermKind = iota
	// StringTerm is a quoted string: "/zones/example.com.zone".
	StringTerm
	// ListTerm is a braced list of elements: { 192.0.2.1; key "k"; }.
	ListTerm
)

// Term is a word, a quoted string or a braced list.
type Term struct {
	// Kind is what the term is.
	Kind TermKind
	// Text is a word's or a string's text (unquoted).
	Text string
	// Elems are a list's elements.
	Elems []Value
}

// Word returns the bare word s (rendered quoted if it is not a plain word).
func Word(s string) Term { return Term{Kind: WordTerm, Text: s} }

// Quoted returns the quoted string s.
func Quoted(s string) Term { return Term{Kind: StringTerm, Text: s} }

// List returns the braced list of elems; List() is the empty list `{ }`.
func List(elems ...Value) Term { return Term{Kind: ListTerm, Elems: elems} }

// Words returns the value of the words and strings given, each a word,
// e.g. Words("192.0.2.1", "port", "53").
func Words(words ...string) Value {
	v := make(Value, len(words))
	for i, w := range words {
		v[i] = Word(w)
	}
	return v
}

// Text returns the text of a value that is one word or one string.
func (v Value) Text() (string, bool) {
	if len(v) != 1 || v[0].Kind == ListTerm {
		return "", false
	}
	return v[0].Text, true
}

// Elems returns the elements of a value that is one braced list.
func (v Value) Elems() ([]Value, bool) {
	if len(v) != 1 || v[0].Kind != ListTerm {
		return nil, false
	}
	return v[0].Elems, true
}

// Strings returns the text of each word and string of the value, in order;
// a list stands as "{" (so it is never mistaken for a word).
func (v Value) Strings() []string {
	out := make([]string, len(v))
	for i, t := range v {
		if t.Kind == ListTerm {
			out[i] = "{"
		} else {
			out[i] = t.Text
		}
	}
	return out
}

// String renders the value as named.conf text.
func (v Value) String() string {
	var b strings.Builder
	v.render(&b)
	return b.String()
}

// Get returns the value of the first clause called name.
func (z *ZoneStatement) Get(name string) (Value, bool) {
	for _, c := range z.Clauses {
		if c.Name == name {
			return c.Value, true
		}
	}
	return nil, false
}

// Type returns the text of the type clause ("primary", "secondary", ...),
// with BIND's old names master and slave mapped to primary and secondary.
func (z *ZoneStatement) Type() string {
	v, _ := z.Get("type")
	t, _ := v.Text()
	switch t {
	case "master":
		return "primary"
	case "slave":
		return "secondary"
	}
	return t
}

// Add appends a clause.
func (z *ZoneStatement) Add(name string, value ...Term) {
	z.Clauses = append(z.Clauses, Clause{Name: name, Value: value})
}

// Set replaces the value of the clause called name, or appends the clause
// when the statement has none.
func (z *ZoneStatement) Set(name string, value ...Term) {
	for i, c := range z.Clauses {
		if c.Name == name {
			z.Clauses[i].Value = value
			return
		}
	}
	z.Add(name, value...)
}

// Remove deletes every clause called name.
func (z *ZoneStatement) Remove(name string) {
	out := z.Clauses[:0]
	for _, c := range z.Clauses {
		if c.Name != name {
			out = append(out, c)
		}
	}
	z.Clauses = out
}

// String renders the clause as it stands inside a zone statement's block,
// e.g. `allow-update { key "k"; };`.
func (c Clause) String() string {
	var b strings.Builder
	renderWord(&b, c.Name)
	if len(c.Value) > 0 {
		b.WriteByte(' ')
		c.Value.render(&b)
	}
	b.WriteByte(';')
	return b.String()
}

// Block renders the statement's block on one line, e.g.
// `{ type primary; file "x"; };`, the form addzone and modzone take.
func (z *ZoneStatement) Block() string {
	var b strings.Builder
	b.WriteString("{ ")
	for _, c := range z.Clauses {
		renderWord(&b, c.Name)
		if len(c.Value) > 0 {
			b.WriteByte(' ')
			c.Value.render(&b)
		}
		b.WriteString("; ")
	}
	b.WriteString("};")
	return b.String()
}

// String renders the whole statement as showzone prints it.
func (z *ZoneStatement) String() string {
	s := "zone " + quote(z.Name) + " "
	if z.Extra != "" {
		s += z.Extra + " "
	}
	return s + z.Block()
}

func (v Value) render(b *strings.Builder) {
	for i, t := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch t.Kind {
		case WordTerm:
			renderWord(b, t.Text)
		case ListTerm:
			if len(t.Elems) == 0 {
				b.WriteString("{ }")
				continue
			}
			b.WriteString("{ ")
			for _, e := range t.Elems {
				e.render(b)
				b.WriteString("; ")
			}
			b.WriteByte('}')
		default:
			b.WriteString(quote(t.Text))
		}
	}
}

// renderWord writes s as a bare word when it reads back as that one word,
// else as a quoted string.
func renderWord(b *strings.Builder, s string) {
	if plainWord(s) {
		b.WriteString(s)
	} else {
		b.WriteString(quote(s))
	}
}

// plainWord reports whether s tokenizes as one bare word: no space, quote,
// brace, ';', comment start (#, //, /*) or control character.
func plainWord(s string) bool {
	if s == "" || strings.Contains(s, "//") || strings.Contains(s, "/*") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f || strings.IndexByte(`{};"#\`, c) >= 0 {
			return false
		}
	}
	return true
}

// quote renders s as a named.conf string: '\' and '"' are escaped, control
// characters (which named.conf strings cannot hold) dropped. It is the one
// quoting function of zone statements.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// maxZoneStatementLength bounds the text ParseZoneStatement accepts.
const maxZoneStatementLength = 1 << 20

// ParseZoneStatement parses one zone statement as printed by showzone. It
// fails on anything that is not a single `zone "name" ... { clause; ... };`
// statement whose lists are brace-balanced with every element ended by ';'.
func ParseZoneStatement(text string) (*ZoneStatement, error) {
	if len(text) > maxZoneStatementLength {
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
	zs := &ZoneStatement{Name: toks[1].text}
	i := 2
	var extra []string
	for i < len(toks) && toks[i].kind != ztOpen {
		if toks[i].kind != ztWord && toks[i].kind != ztString {
			return nil, fmt.Errorf("unexpected %q before the zone's block", toks[i].raw)
		}
		extra = append(extra, toks[i].raw)
		i++
	}
	zs.Extra = strings.Join(extra, " ")
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
		value, next, err := parseValue(toks, i+1)
		if err != nil || next >= len(toks) || toks[next].kind != ztSemi {
			return nil, fmt.Errorf("option %s is not terminated by ';'", name)
		}
		zs.Clauses = append(zs.Clauses, Clause{Name: name, Value: value})
		i = next + 1
	}
	// After the block's '}': an optional ';' and nothing else.
	i++
	if i < len(toks) && toks[i].kind == ztSemi {
		i++
	}
	if i != len(toks) {
		return nil, fmt.Errorf("unexpected %q after the zone statement", toks[i].raw)
	}
	return zs, nil
}

// parseValue reads terms from toks[i] up to (not including) the ';' or '}'
// that ends them and returns them with the index of that token.
func parseValue(toks []ztoken, i int) (Value, int, error) {
	var v Value
	for i < len(toks) {
		switch t := toks[i]; t.kind {
		case ztSemi, ztClose:
			return v, i, nil
		case ztWord:
			v = append(v, Word(t.text))
			i++
		case ztString:
			v = append(v, Quoted(t.text))
			i++
		case ztOpen:
			l, next, err := parseList(toks, i+1)
			if err != nil {
				return nil, 0, err
			}
			v = append(v, l)
			i = next
		}
	}
	return v, i, nil
}

// parseList reads a list's elements from toks[i], just after its '{', to
// its '}', and returns the list with the index after the '}'. Empty
// elements (a stray ';') are skipped; every element must end with ';'.
func parseList(toks []ztoken, i int) (Term, int, error) {
	l := List()
	for {
		if i >= len(toks) {
			return Term{}, 0, errors.New("unbalanced braces")
		}
		switch toks[i].kind {
		case ztClose:
			return l, i + 1, nil
		case ztSemi:
			i++
			continue
		}
		e, next, err := parseValue(toks, i)
		if err != nil {
			return Term{}, 0, err
		}
		if next >= len(toks) || toks[next].kind != ztSemi {
			return Term{}, 0, errors.New("list element not terminated by ';'")
		}
		l.Elems = append(l.Elems, e)
		i = next + 1
	}
}

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
				if c := s[j]; c < 0x20 || c == 0x7f {
					return nil, fmt.Errorf("control character %q in a string", c)
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
				// named prints text with a backslash as a quoted string;
				// a bare word holding one would be rendered quoted, a
				// string, which is not what was read.
				if s[j] == '\\' {
					return nil, errors.New("backslash outside a quoted string")
				}
				j++
			}
			toks = append(toks, ztoken{kind: ztWord, text: s[i:j], raw: s[i:j], pos: i})
			i = j
		}
	}
	return toks, nil
}

// ShowZoneStatement runs "showzone <zone>" and parses the statement. An
// unknown zone gives an error for which IsNotFound is true.
func (c *Client) ShowZoneStatement(ctx context.Context, zone string) (*ZoneStatement, error) {
	return c.showZoneStatement(ctx, zone, "")
}

func (c *Client) showZoneStatement(ctx context.Context, zone, view string) (*ZoneStatement, error) {
	text, err := c.showZone(ctx, zone, view)
	if err != nil {
		return nil, err
	}
	zs, err := ParseZoneStatement(text)
	if err != nil {
		return nil, fmt.Errorf("rndc showzone: parsing %q: %w", text, err)
	}
	return zs, nil
}

// ModZone runs "modzone <zone> <block>", replacing the configuration of a
// zone that was added with addzone by the statement's block (its Name names
// the zone; Extra is not sent). named checks the clauses: a refused change
// leaves the zone as it was.
func (c *Client) ModZone(ctx context.Context, zs *ZoneStatement) (string, error) {
	return c.statementCommand(ctx, "modzone", zs, "")
}

// Retransfer runs "retransfer <zone>": a secondary zone transfers again
// from its primaries. On a primary zone named refuses it (Err "failure",
// Text "retransfer: inappropriate zone type: primary"); IsWrongZoneType
// is then true.
func (c *Client) Retransfer(ctx context.Context, zone string) (string, error) {
	return c.textCommand(ctx, "retransfer", zone, "")
}

// IsWrongZoneType reports whether err is named refusing a command because
// of the zone's type ("inappropriate zone type", e.g. retransfer of a
// primary zone).
func IsWrongZoneType(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.Contains(e.Text, "inappropriate zone type")
}
