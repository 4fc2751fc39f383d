package rndc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Config is what an rndc.conf, an rndc.key or a named key file declares:
// its keys and, for rndc.conf, the defaults of its options block.
type Config struct {
	// Keys are the key clauses, in file order (includes expanded in place).
	Keys []Key
	// DefaultKey is options { default-key }.
	DefaultKey string
	// DefaultServer is options { default-server }.
	DefaultServer string
	// DefaultPort is options { default-port }, or 0 when unset.
	DefaultPort int
}

// maxIncludeDepth bounds nested include statements.
const maxIncludeDepth = 16

// LoadConfig reads and parses the BIND-syntax file at path. See ParseConfig.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading rndc config: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig parses BIND configuration syntax as used by rndc.conf,
// rndc.key and named key files:
//
//	key "name" { algorithm hmac-sha256; secret "base64"; };
//	options { default-key "name"; default-server 127.0.0.1; default-port 953; };
//	include "other.key";
//
// Comments (//, # and /* */) are allowed. Server blocks and other
// statements are skipped. An include is resolved relative to the directory
// of the including file (filename; "" means the current directory) and
// include cycles are an error. Errors give file:line and never contain a
// secret.
func ParseConfig(data []byte, filename string) (*Config, error) {
	cfg := &Config{}
	abs := filename
	if filename != "" {
		if a, err := filepath.Abs(filename); err == nil {
			abs = a
		}
	}
	p := &confParser{cfg: cfg, seen: map[string]bool{}}
	if err := p.parseFile(data, filename, abs, 0); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, k := range cfg.Keys {
		if seen[k.Name] {
			return nil, fmt.Errorf("%s: duplicate key %q", displayName(filename), k.Name)
		}
		seen[k.Name] = true
	}
	return cfg, nil
}

// Key returns the key called name. An empty name selects the configured
// default-key, or else the only key in the configuration.
func (c *Config) Key(name string) (Key, error) {
	if name == "" {
		name = c.DefaultKey
	}
	if name == "" {
		switch len(c.Keys) {
		case 0:
			return Key{}, errors.New("no key in rndc configuration")
		case 1:
			return c.Keys[0], nil
		default:
			return Key{}, fmt.Errorf("rndc configuration has %d keys and no default-key: name one", len(c.Keys))
		}
	}
	for _, k := range c.Keys {
		if k.Name == name {
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("no key %q in rndc configuration", name)
}

func displayName(f string) string {
	if f == "" {
		return "<config>"
	}
	return f
}

// token kinds of the BIND configuration lexer.
const (
	tokWord = iota
	tokString
	tokPunct // one of { } ;
	tokEOF
)

type token struct {
	kind int
	text string
	line int
}

type lexer struct {
	src  []byte
	pos  int
	line int
	file string
}

func (l *lexer) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", displayName(l.file), line, fmt.Sprintf(format, args...))
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '#':
			l.skipLine()
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			l.skipLine()
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			start := l.line
			l.pos += 2
			for {
				if l.pos+1 >= len(l.src) {
					return token{}, l.errorf(start, "unterminated comment")
				}
				if l.src[l.pos] == '\n' {
					l.line++
				}
				if l.src[l.pos] == '*' && l.src[l.pos+1] == '/' {
					l.pos += 2
					break
				}
				l.pos++
			}
		case c == '{' || c == '}' || c == ';':
			l.pos++
			return token{kind: tokPunct, text: string(c), line: l.line}, nil
		case c == '"':
			start := l.line
			l.pos++
			var sb strings.Builder
			for {
				if l.pos >= len(l.src) {
					return token{}, l.errorf(start, "unterminated string")
				}
				c := l.src[l.pos]
				l.pos++
				if c == '"' {
					break
				}
				if c == '\\' && l.pos < len(l.src) {
					c = l.src[l.pos]
					l.pos++
				}
				if c == '\n' {
					l.line++
				}
				sb.WriteByte(c)
			}
			return token{kind: tokString, text: sb.String(), line: start}, nil
		default:
			start := l.pos
			for l.pos < len(l.src) {
				c := l.src[l.pos]
				if c <= ' ' || c == '{' || c == '}' || c == ';' || c == '"' || c == '#' ||
					(c == '/' && l.pos+1 < len(l.src) && (l.src[l.pos+1] == '/' || l.src[l.pos+1] == '*')) {
					break
				}
				l.pos++
			}
			return token{kind: tokWord, text: string(l.src[start:l.pos]), line: l.line}, nil
		}
	}
	return token{kind: tokEOF, line: l.line}, nil
}

func (l *lexer) skipLine() {
	for l.pos < len(l.src) && l.src[l.pos] != '\n' {
		l.pos++
	}
}

type confParser struct {
	cfg  *Config
	seen map[string]bool // files on the current include stack
}

// parseFile parses one file's statements into p.cfg.
func (p *confParser) parseFile(data []byte, name, abs string, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("%s: includes nested deeper than %d", displayName(name), maxIncludeDepth)
	}
	if abs != "" {
		if p.seen[abs] {
			return fmt.Errorf("%s: include cycle", displayName(name))
		}
		p.seen[abs] = true
		defer delete(p.seen, abs)
	}
	l := &lexer{src: data, line: 1, file: name}
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		if t.kind == tokEOF {
			return nil
		}
		if t.kind == tokPunct && t.text == ";" {
			continue // stray semicolon
		}
		if t.kind != tokWord {
			return l.errorf(t.line, "expected a statement")
		}
		switch strings.ToLower(t.text) {
		case "key":
			if err := p.parseKey(l, t.line); err != nil {
				return err
			}
		case "options":
			if err := p.parseOptions(l); err != nil {
				return err
			}
		case "include":
			if err := p.parseInclude(l, name, depth); err != nil {
				return err
			}
		default:
			// server, controls, zone, ...: skip the whole statement.
			if err := skipStatement(l, t.line); err != nil {
				return err
			}
		}
	}
}

// skipStatement skips to the ';' that ends the current statement, over
// any balanced braces.
func skipStatement(l *lexer, line int) error {
	depth := 0
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tokEOF:
			return l.errorf(line, "unterminated statement")
		case t.kind == tokPunct && t.text == "{":
			depth++
		case t.kind == tokPunct && t.text == "}":
			depth--
			if depth < 0 {
				return l.errorf(t.line, "unbalanced '}'")
			}
		case t.kind == tokPunct && t.text == ";" && depth == 0:
			return nil
		}
	}
}

func expectPunct(l *lexer, p, what string) error {
	t, err := l.next()
	if err != nil {
		return err
	}
	if t.kind != tokPunct || t.text != p {
		return l.errorf(t.line, "expected '%s' %s", p, what)
	}
	return nil
}

// value reads a single word or string followed by ';'. The value is not
// echoed in errors, since it may be a secret.
func value(l *lexer, clause string) (string, int, error) {
	t, err := l.next()
	if err != nil {
		return "", 0, err
	}
	if t.kind != tokWord && t.kind != tokString {
		return "", t.line, l.errorf(t.line, "missing value for %s", clause)
	}
	if err := expectPunct(l, ";", "after "+clause); err != nil {
		return "", t.line, err
	}
	return t.text, t.line, nil
}

func (p *confParser) parseKey(l *lexer, line int) error {
	nt, err := l.next()
	if err != nil {
		return err
	}
	if nt.kind != tokWord && nt.kind != tokString {
		return l.errorf(nt.line, "key: missing name")
	}
	name := nt.text
	if err := expectPunct(l, "{", "after key name"); err != nil {
		return err
	}
	var alg, secret string
	var algLine, secretLine int
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		if t.kind == tokPunct && t.text == "}" {
			break
		}
		if t.kind == tokEOF {
			return l.errorf(line, "key %q: unterminated block", name)
		}
		if t.kind != tokWord {
			return l.errorf(t.line, "key %q: expected a clause", name)
		}
		switch strings.ToLower(t.text) {
		case "algorithm":
			if alg, algLine, err = value(l, "algorithm"); err != nil {
				return err
			}
		case "secret":
			if secret, secretLine, err = value(l, "secret"); err != nil {
				return err
			}
		default:
			// Echo the clause only when it cannot be a misplaced secret.
			if isIdent(t.text) {
				return l.errorf(t.line, "key %q: unknown clause %q", name, t.text)
			}
			return l.errorf(t.line, "key %q: unknown clause", name)
		}
	}
	if err := expectPunct(l, ";", "after key block"); err != nil {
		return err
	}
	if alg == "" {
		return l.errorf(line, "key %q: missing algorithm", name)
	}
	if secretLine == 0 {
		return l.errorf(line, "key %q: missing secret", name)
	}
	if err := validKeyName(name); err != nil {
		return l.errorf(nt.line, "%v", err)
	}
	a, err := ParseAlgorithm(alg)
	if err != nil {
		return l.errorf(algLine, "key %q: %v", name, err)
	}
	sec, err := decodeSecret(secret)
	if err != nil {
		return l.errorf(secretLine, "key %q: %v", name, err)
	}
	p.cfg.Keys = append(p.cfg.Keys, Key{Name: name, Algorithm: a, Secret: sec})
	return nil
}

func (p *confParser) parseOptions(l *lexer) error {
	if err := expectPunct(l, "{", "after options"); err != nil {
		return err
	}
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		if t.kind == tokPunct && t.text == "}" {
			break
		}
		if t.kind == tokEOF {
			return l.errorf(t.line, "options: unterminated block")
		}
		if t.kind != tokWord {
			return l.errorf(t.line, "options: expected a clause")
		}
		switch strings.ToLower(t.text) {
		case "default-key":
			if p.cfg.DefaultKey, _, err = value(l, "default-key"); err != nil {
				return err
			}
		case "default-server":
			if p.cfg.DefaultServer, _, err = value(l, "default-server"); err != nil {
				return err
			}
		case "default-port":
			v, line, err := value(l, "default-port")
			if err != nil {
				return err
			}
			port, err := strconv.Atoi(v)
			if err != nil || port < 1 || port > 65535 {
				return l.errorf(line, "options: invalid default-port %q", v)
			}
			p.cfg.DefaultPort = port
		default:
			if err := skipStatement(l, t.line); err != nil {
				return err
			}
		}
	}
	return expectPunct(l, ";", "after options block")
}

func (p *confParser) parseInclude(l *lexer, name string, depth int) error {
	t, err := l.next()
	if err != nil {
		return err
	}
	if t.kind != tokString && t.kind != tokWord {
		return l.errorf(t.line, "include: missing file name")
	}
	if err := expectPunct(l, ";", "after include"); err != nil {
		return err
	}
	path := t.text
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(name), path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if p.seen[abs] {
		return l.errorf(t.line, "include cycle: %s", t.text)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return l.errorf(t.line, "include: %v", err)
	}
	return p.parseFile(data, path, abs, depth+1)
}

// isIdent reports whether s looks like a configuration keyword (lower-case
// letters and hyphens, short), as opposed to a value such as a secret.
func isIdent(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}
