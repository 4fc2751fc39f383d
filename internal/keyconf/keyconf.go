// Package keyconf is the configuration of an HMAC key (rndc or TSIG) as
// the Caddy modules of this project take it: a BIND key file or an inline
// name, algorithm and secret, with Caddy placeholders expanded only when
// the key is loaded, so secrets never reach the adapted configuration.
package keyconf

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// Config names an HMAC key, either in a BIND key file (rndc.key,
// rndc.conf, or tsig-keygen output) or inline. Secrets should be given as
// {env.VAR} or {file.path} placeholders, which are expanded at run time and
// never stored in the adapted configuration.
type Config struct {
	// File is the path of a key file in BIND syntax.
	File string `json:"file,omitempty"`

	// Name is the key's name. With File, it selects one key of several.
	Name string `json:"name,omitempty"`

	// Algorithm is the HMAC algorithm of an inline key, e.g. hmac-sha256.
	Algorithm string `json:"algorithm,omitempty"`

	// Secret is the base64 secret of an inline key.
	Secret string `json:"secret,omitempty"`
}

// HasSecret reports whether k gives a secret (a key file, or an inline
// secret), as opposed to a key named only.
func (k Config) HasSecret() bool { return k.File != "" || k.Secret != "" }

// Validate checks, without reading any file, that k is given either by
// file or inline; what names the key in errors. Without needSecret a key
// may be given by name alone (when only its name is used).
func (k Config) Validate(what string, needSecret bool) error {
	inline := k.Algorithm != "" || k.Secret != ""
	switch {
	case k.File != "" && inline:
		return fmt.Errorf("%s: give either a key file or an inline algorithm and secret, not both", what)
	case k.File == "" && !inline && needSecret:
		return fmt.Errorf("%s: a key file or an inline name, algorithm and secret is required", what)
	case k.File == "" && !inline && k.Name == "":
		return fmt.Errorf("%s: a key file or a key name is required", what)
	case inline && (k.Name == "" || k.Algorithm == "" || k.Secret == ""):
		return fmt.Errorf("%s: an inline key needs a name, an algorithm and a secret", what)
	}
	if k.Algorithm != "" && !strings.Contains(k.Algorithm, "{") {
		if _, err := rndc.ParseAlgorithm(k.Algorithm); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	return nil
}

// Load expands placeholders in k and loads the key it names.
func (k Config) Load() (rndc.Key, error) {
	repl := caddy.NewReplacer()
	name := repl.ReplaceKnown(k.Name, "")
	if k.File != "" {
		cfg, err := rndc.LoadConfig(repl.ReplaceKnown(k.File, ""))
		if err != nil {
			return rndc.Key{}, err
		}
		return cfg.Key(name)
	}
	secret, err := repl.ReplaceOrErr(k.Secret, true, true)
	if err != nil {
		// The error names the placeholder, never its value.
		return rndc.Key{}, fmt.Errorf("key %q secret: %v", name, err)
	}
	return rndc.NewKey(name, repl.ReplaceKnown(k.Algorithm, ""), secret)
}

// ResolveUpdate returns the name of the update key k describes and,
// when k has a secret (a key file, or an inline algorithm and secret), the
// whole key for signing updates. A name-only key gives a nil key: zones
// are created with allow-update for it, but the module cannot send
// updates.
func (k Config) ResolveUpdate() (string, *rndc.Key, error) {
	if !k.HasSecret() {
		return caddy.NewReplacer().ReplaceKnown(k.Name, ""), nil, nil
	}
	key, err := k.Load()
	if err != nil {
		return "", nil, err
	}
	return key.Name, &key, nil
}
