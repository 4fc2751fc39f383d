package rndc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secretB64 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		keys        []string // name/algorithm
		defaultKey  string
		server      string
		port        int
		selectKey   string // Key("") result
		selectError bool
	}{
		{
			name:      "rndc.key",
			in:        `key "rndc-key" { algorithm hmac-sha256; secret "` + secretB64 + `"; };`,
			keys:      []string{"rndc-key/hmac-sha256"},
			selectKey: "rndc-key",
		},
		{
			name: "rndc.conf with options and comments",
			in: `# rndc.conf
// generated
/* block
   comment */
key "a" { algorithm HMAC-SHA512; secret "` + secretB64 + `"; };
key b { algorithm md5; secret "` + secretB64 + `"; };  # trailing
options {
	default-key "b";
	default-server 127.0.0.1;
	default-port 9530;
	unknown-option { nested; };
};
server 127.0.0.1 { key "a"; addresses { 127.0.0.1 port 953; }; };
`,
			keys:       []string{"a/hmac-sha512", "b/hmac-md5"},
			defaultKey: "b", server: "127.0.0.1", port: 9530,
			selectKey: "b",
		},
		{
			name:        "two keys no default",
			in:          `key a { algorithm hmac-sha1; secret "` + secretB64 + `"; }; key c { algorithm hmac-sha224; secret "` + secretB64 + `"; };`,
			keys:        []string{"a/hmac-sha1", "c/hmac-sha224"},
			selectError: true,
		},
		{
			name:        "empty",
			in:          "// nothing\n",
			selectError: true,
		},
		{
			name: "named.conf statements skipped",
			in: `options { directory "/var/cache/bind"; listen-on { any; }; };
controls { inet 127.0.0.1 allow { localhost; } keys { "k"; }; };
zone "x" { type primary; file "x"; };
key k { secret "` + secretB64 + `"; algorithm hmac-sha384; };`,
			keys:      []string{"k/hmac-sha384"},
			selectKey: "k",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(tt.in), "test.conf")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range cfg.Keys {
				got = append(got, k.Name+"/"+string(k.Algorithm))
				if k.SecretBase64() != secretB64 {
					t.Errorf("key %s: wrong secret", k.Name)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("keys = %v, want %v", got, tt.keys)
			}
			if cfg.DefaultKey != tt.defaultKey || cfg.DefaultServer != tt.server || cfg.DefaultPort != tt.port {
				t.Errorf("options = %q %q %d", cfg.DefaultKey, cfg.DefaultServer, cfg.DefaultPort)
			}
			k, err := cfg.Key("")
			if tt.selectError {
				if err == nil {
					t.Errorf("Key(\"\") = %v, want error", k)
				}
				return
			}
			if err != nil || k.Name != tt.selectKey {
				t.Errorf("Key(\"\") = %v, %v", k, err)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	const secret = "c3VwZXJzZWNyZXRzdXBlcnNlY3JldA=="
	tests := []struct {
		name, in, want string
	}{
		{"bad base64", "key k {\n algorithm hmac-sha256;\n secret \"" + secret + "!!\";\n};", "test.conf:3:"},
		{"bad algorithm", "key k { algorithm hmac-foo; secret \"" + secret + "\"; };", "unsupported algorithm"},
		{"missing secret", "key k { algorithm hmac-sha256; };", "missing secret"},
		{"missing algorithm", "key k { secret \"" + secret + "\"; };", "missing algorithm"},
		{"unknown clause holding secret", "key k {\n algorithm hmac-sha256;\n " + secret + ";\n};", "test.conf:3: key \"k\": unknown clause"},
		{"missing semicolon", "key k { algorithm hmac-sha256; secret \"" + secret + "\" };", "expected ';'"},
		{"unterminated string", "key k { secret \"" + secret + " };", "unterminated string"},
		{"unterminated comment", "/* key", "unterminated comment"},
		{"unterminated block", "key k { algorithm hmac-sha256; secret \"" + secret + "\";", "unterminated block"},
		{"duplicate key", "key k { algorithm hmac-sha256; secret \"" + secret + "\"; }; key k { algorithm hmac-sha256; secret \"" + secret + "\"; };", "duplicate key"},
		{"bad port", "options { default-port 99999; };", "invalid default-port"},
		{"missing include", `include "does-not-exist.key";`, "include"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.in), "test.conf")
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "c3VwZXJzZWNyZXRzdXBlcnNl") {
				t.Errorf("error leaks the secret: %q", err)
			}
		})
	}
}

func TestConfigInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("keys/rndc.key", `key "inc" { algorithm hmac-sha256; secret "`+secretB64+`"; };`)
	conf := write("rndc.conf", `include "keys/rndc.key"; options { default-key inc; };`)
	cfg, err := LoadConfig(conf)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := cfg.Key(""); err != nil || k.Name != "inc" {
		t.Fatalf("Key = %v, %v", k, err)
	}
	if _, err := cfg.Key("nope"); err == nil {
		t.Error("Key(nope) succeeded")
	}

	// Cycles: a includes b includes a; and a file including itself.
	write("a.conf", `include "b.conf";`)
	write("b.conf", `include "a.conf";`)
	if _, err := LoadConfig(filepath.Join(dir, "a.conf")); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: err = %v", err)
	}
	self := write("self.conf", `include "self.conf";`)
	if _, err := LoadConfig(self); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("self include: err = %v", err)
	}
	// The same file included twice (not a cycle) gives a duplicate key.
	twice := write("twice.conf", `include "keys/rndc.key"; include "keys/rndc.key";`)
	if _, err := LoadConfig(twice); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("twice: err = %v", err)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.conf")); err == nil {
		t.Error("LoadConfig(missing) succeeded")
	}
}

func TestKey(t *testing.T) {
	k, err := NewKey("rndc-key", "SHA256", secretB64)
	if err != nil {
		t.Fatal(err)
	}
	if k.Algorithm != HMACSHA256 {
		t.Errorf("algorithm = %s", k.Algorithm)
	}
	for _, s := range []string{k.String(), k.GoString()} {
		if strings.Contains(s, secretB64) || strings.Contains(s, string(k.Secret)) {
			t.Errorf("String leaks secret: %s", s)
		}
	}
	if k.String() != `key "rndc-key" (hmac-sha256)` {
		t.Errorf("String = %s", k.String())
	}
	c := &Client{Key: k}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := sprintf(verb, c); strings.Contains(s, "0123456789abcdef") {
			t.Errorf("%s of Client leaks secret: %s", verb, s)
		}
	}

	bad := []struct{ name, alg, secret string }{
		{"", "hmac-sha256", secretB64},
		{"a b", "hmac-sha256", secretB64},
		{"k", "hmac-sha3", secretB64},
		{"k", "hmac-sha256", ""},
		{"k", "hmac-sha256", "not base64 at all!"},
	}
	for _, b := range bad {
		_, err := NewKey(b.name, b.alg, b.secret)
		if err == nil {
			t.Errorf("NewKey(%q, %q) succeeded", b.name, b.alg)
		} else if b.secret != "" && strings.Contains(err.Error(), b.secret) {
			t.Errorf("NewKey error leaks secret: %v", err)
		}
	}
}

func TestParseAlgorithm(t *testing.T) {
	good := map[string]Algorithm{
		"hmac-md5": HMACMD5, "MD5": HMACMD5, "hmac-md5.sig-alg.reg.int.": HMACMD5,
		"sha1": HMACSHA1, "HMAC-SHA224": HMACSHA224, "hmac-sha256": HMACSHA256,
		"sha384": HMACSHA384, " hmac-sha512 ": HMACSHA512,
	}
	for in, want := range good {
		if got, err := ParseAlgorithm(in); err != nil || got != want {
			t.Errorf("ParseAlgorithm(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "hmac-", "sha3-256", "gss-tsig"} {
		if _, err := ParseAlgorithm(in); err == nil {
			t.Errorf("ParseAlgorithm(%q) succeeded", in)
		}
	}
}
