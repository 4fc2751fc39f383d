package rndc

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Algorithm identifies an HMAC algorithm for rndc and TSIG keys, spelled as
// in BIND's configuration (e.g. "hmac-sha256").
type Algorithm string

// The HMAC algorithms that BIND's control channel supports.
const (
	HMACMD5    Algorithm = "hmac-md5"
	HMACSHA1   Algorithm = "hmac-sha1"
	HMACSHA224 Algorithm = "hmac-sha224"
	HMACSHA256 Algorithm = "hmac-sha256"
	HMACSHA384 Algorithm = "hmac-sha384"
	HMACSHA512 Algorithm = "hmac-sha512"
)

// Algorithms lists every supported algorithm, weakest first.
var Algorithms = []Algorithm{HMACMD5, HMACSHA1, HMACSHA224, HMACSHA256, HMACSHA384, HMACSHA512}

// ParseAlgorithm returns the Algorithm named by s, case-insensitively,
// with or without the "hmac-" prefix (so "SHA256" and "hmac-sha256" are
// the same). A trailing DNS-name form such as "hmac-md5.sig-alg.reg.int."
// is accepted for MD5.
func ParseAlgorithm(s string) (Algorithm, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	n = strings.TrimSuffix(n, ".")
	n = strings.TrimSuffix(n, ".sig-alg.reg.int")
	if !strings.HasPrefix(n, "hmac-") {
		n = "hmac-" + n
	}
	a := Algorithm(n)
	for _, known := range Algorithms {
		if a == known {
			return a, nil
		}
	}
	return "", fmt.Errorf("unsupported algorithm %q (want one of hmac-md5, hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512)", s)
}

// Key is a named HMAC secret as found in rndc.key, rndc.conf or a TSIG key
// file. Its String and GoString forms never include the secret.
type Key struct {
	// Name is the key's name, e.g. "rndc-key".
	Name string
	// Algorithm is the HMAC algorithm.
	Algorithm Algorithm
	// Secret is the decoded secret.
	Secret []byte
}

// String returns the key's name and algorithm, never its secret:
// `key "name" (hmac-sha256)`.
func (k Key) String() string {
	return fmt.Sprintf("key %q (%s)", k.Name, k.Algorithm)
}

// GoString is like String, so that %#v does not print the secret either.
func (k Key) GoString() string { return "rndc.Key{" + k.String() + "}" }

// SecretBase64 returns the secret in the base64 form used by BIND's
// configuration files.
func (k Key) SecretBase64() string { return base64.StdEncoding.EncodeToString(k.Secret) }

// NewKey builds a Key from its name, algorithm and base64 secret, as
// written in a BIND key clause. Errors never contain the secret.
func NewKey(name, algorithm, secretBase64 string) (Key, error) {
	if err := validKeyName(name); err != nil {
		return Key{}, err
	}
	alg, err := ParseAlgorithm(algorithm)
	if err != nil {
		return Key{}, fmt.Errorf("key %q: %w", name, err)
	}
	secret, err := decodeSecret(secretBase64)
	if err != nil {
		return Key{}, fmt.Errorf("key %q: %w", name, err)
	}
	return Key{Name: name, Algorithm: alg, Secret: secret}, nil
}

// validate reports whether k is usable for signing.
func (k Key) validate() error {
	if err := validKeyName(k.Name); err != nil {
		return err
	}
	if _, ok := algorithmCode[k.Algorithm]; !ok {
		return fmt.Errorf("key %q: unsupported algorithm %q", k.Name, string(k.Algorithm))
	}
	if len(k.Secret) == 0 {
		return fmt.Errorf("key %q: empty secret", k.Name)
	}
	return nil
}

func validKeyName(name string) error {
	if name == "" {
		return fmt.Errorf("empty key name")
	}
	if len(name) > 255 {
		return fmt.Errorf("key name too long")
	}
	for _, r := range name {
		if r <= ' ' || r == '"' || r == '\\' || r == ';' || r == '{' || r == '}' || r == 0x7f {
			return fmt.Errorf("invalid character in key name %q", name)
		}
	}
	return nil
}

// decodeSecret decodes a base64 secret; BIND tolerates embedded whitespace.
// The error never includes the input.
func decodeSecret(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return nil, fmt.Errorf("empty secret")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		// Accept unpadded secrets too.
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("secret is not valid base64")
	}
	return b, nil
}
