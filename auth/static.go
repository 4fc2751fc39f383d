package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func init() {
	caddy.RegisterModule(Static{})
}

// Static authenticates named tokens listed in the configuration or in a
// token file. Tokens are kept as SHA-256 hashes ("sha256:<hex>"), so the
// adapted JSON never holds a usable token; `caddy zoneapi-token` mints a
// token and prints its hash. A presented token is hashed and compared
// with every known hash in constant time. The token file is read when the
// configuration is loaded, so `caddy reload` picks up its changes.
type Static struct {
	// Tokens are the accepted tokens.
	Tokens []StaticToken `json:"tokens,omitempty"`

	// TokenFile is a file of further tokens, one a line:
	// `<name> sha256:<hex> [expires=<RFC 3339>] [actions=…] [zones=…]
	// [names=…] [types=…]`; blank lines and lines starting with # are
	// ignored. Placeholders are expanded.
	TokenFile string `json:"token_file,omitempty"`

	entries []staticEntry
}

// StaticToken is one named token.
type StaticToken struct {
	// Name names the token's holder in logs, the audit trail and the
	// {http.auth.user.id} placeholder.
	Name string `json:"name,omitempty"`

	// Hash is "sha256:" and the hex SHA-256 of the token. It may be a
	// placeholder ({env.X}, {file.path}) expanding to such a hash or to
	// the token itself, which is then hashed at load.
	Hash string `json:"hash,omitempty"`

	// Expires, when set, is the RFC 3339 time after which the token is
	// refused.
	Expires string `json:"expires,omitempty"`

	// Scope is what the token may do; empty means everything.
	Scope Scope `json:"scope,omitzero"`
}

type staticEntry struct {
	hash    [sha256.Size]byte
	expires time.Time
	id      *Identity
}

// CaddyModule returns the Caddy module information.
func (Static) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  Namespace + ".static",
		New: func() caddy.Module { return new(Static) },
	}
}

// Provision expands placeholders, reads the token file and compiles every
// token's scope.
func (s *Static) Provision(caddy.Context) error {
	repl := caddy.NewReplacer()
	s.entries = nil
	for i, t := range s.Tokens {
		t.Hash = repl.ReplaceKnown(t.Hash, "")
		if err := s.add(t); err != nil {
			return fmt.Errorf("tokens[%d] (%s): %v", i, t.Name, err)
		}
	}
	if s.TokenFile != "" {
		path := repl.ReplaceKnown(s.TokenFile, "")
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("token_file: %v", err)
		}
		toks, err := ParseTokenFile(data)
		if err != nil {
			return fmt.Errorf("token_file %s: %v", path, err)
		}
		for _, t := range toks {
			if err := s.add(t); err != nil {
				return fmt.Errorf("token_file %s: token %s: %v", path, t.Name, err)
			}
		}
	}
	if len(s.entries) == 0 {
		return fmt.Errorf("no tokens: add `token <name> sha256:<hex>` lines or a token_file (mint one with `caddy zoneapi-token`)")
	}
	return nil
}

func (s *Static) add(t StaticToken) error {
	if t.Name == "" {
		return fmt.Errorf("a token needs a name")
	}
	for _, e := range s.entries {
		if e.id.ID == "static:"+t.Name {
			return fmt.Errorf("duplicate token name %q", t.Name)
		}
	}
	e := staticEntry{id: &Identity{ID: "static:" + t.Name, Mode: "static"}}
	if hexHash, ok := strings.CutPrefix(t.Hash, "sha256:"); ok {
		b, err := hex.DecodeString(hexHash)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("hash: want sha256: and 64 hex digits")
		}
		copy(e.hash[:], b)
	} else if t.Hash != "" {
		e.hash = sha256.Sum256([]byte(t.Hash)) // a placeholder gave the token itself
	} else {
		return fmt.Errorf("hash is empty")
	}
	if t.Expires != "" {
		exp, err := time.Parse(time.RFC3339, t.Expires)
		if err != nil {
			return fmt.Errorf("expires: want an RFC 3339 time such as 2027-01-31T00:00:00Z: %v", err)
		}
		e.expires = exp
	}
	g, err := t.Scope.Compile()
	if err != nil {
		return fmt.Errorf("scope: %v", err)
	}
	e.id.Grant = g
	s.entries = append(s.entries, e)
	return nil
}

// Authenticate hashes the token and compares it with every known hash in
// constant time.
func (s *Static) Authenticate(_ context.Context, token string) (*Identity, error) {
	sum := sha256.Sum256([]byte(token))
	var found *staticEntry
	for i := range s.entries {
		if subtle.ConstantTimeCompare(sum[:], s.entries[i].hash[:]) == 1 {
			found = &s.entries[i]
		}
	}
	if found == nil {
		return nil, Unauthorized("unknown_token", "Invalid token")
	}
	if !found.expires.IsZero() && time.Now().After(found.expires) {
		return nil, Unauthorized("expired_token", "Token expired")
	}
	return found.id, nil
}

// ParseTokenFile reads a token file (see Static.TokenFile).
func ParseTokenFile(data []byte) ([]StaticToken, error) {
	var out []StaticToken
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "sha256:") {
			return nil, fmt.Errorf("line %d: want <name> sha256:<hex> [expires=…] [actions=…] [zones=…] [views=…] [names=…] [types=…]", n)
		}
		t := StaticToken{Name: f[0], Hash: f[1]}
		for _, kv := range f[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || v == "" {
				return nil, fmt.Errorf("line %d: field %q: want key=value", n, kv)
			}
			if k == "expires" {
				t.Expires = v
				continue
			}
			if err := t.Scope.Add(k, strings.Split(v, ",")...); err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
		}
		out = append(out, t)
	}
	return out, sc.Err()
}

// NewToken returns a new random token (32 bytes from crypto/rand,
// base64url, prefixed "zapi_") and its "sha256:<hex>" hash.
func NewToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = "zapi_" + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken returns "sha256:" and the hex SHA-256 of token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// UnmarshalCaddyfile reads the static mode's options:
//
//	auth static {
//		token <name> <sha256:hex|{env.X}|{file.path}> {
//			expires <RFC 3339 time>
//			actions read|records|zones|server...
//			zones   <zone|*.zone|*>[@<view>]...
//			views   <view>...
//			names   <pattern>...
//			types   <type>...
//		}
//		token_file <path>
//	}
//
// A token given in plain text is refused, since it would be stored in the
// adapted JSON: give its hash, or a placeholder.
func (s *Static) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // mode name
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "token":
			var t StaticToken
			if !d.Args(&t.Name, &t.Hash) || d.NextArg() {
				return d.ArgErr()
			}
			if !strings.HasPrefix(t.Hash, "sha256:") && !strings.Contains(t.Hash, "{") {
				return d.Errf("token %s: give the token's hash (sha256:<hex>, printed by `caddy zoneapi-token`) or a placeholder such as {env.X}; a plain token would be stored in the adapted configuration", t.Name)
			}
			for n := d.Nesting(); d.NextBlock(n); {
				key := d.Val()
				args := d.RemainingArgs()
				if len(args) == 0 {
					return d.ArgErr()
				}
				if key == "expires" {
					if len(args) != 1 {
						return d.ArgErr()
					}
					if _, err := time.Parse(time.RFC3339, args[0]); err != nil {
						return d.Errf("expires: want an RFC 3339 time such as 2027-01-31T00:00:00Z")
					}
					t.Expires = args[0]
					continue
				}
				if err := t.Scope.Add(key, args...); err != nil {
					return d.Err(err.Error())
				}
			}
			if _, err := t.Scope.Compile(); err != nil {
				return d.Errf("token %s: %v", t.Name, err)
			}
			s.Tokens = append(s.Tokens, t)
		case "token_file":
			if !d.AllArgs(&s.TokenFile) {
				return d.ArgErr()
			}
		default:
			return d.Errf("unrecognized auth static option %q", d.Val())
		}
	}
	return nil
}

// Interface guards
var (
	_ Authenticator         = (*Static)(nil)
	_ caddy.Provisioner     = (*Static)(nil)
	_ caddyfile.Unmarshaler = (*Static)(nil)
)
