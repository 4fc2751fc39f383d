package auth

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func provisionStatic(t *testing.T, s *Static) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := s.Provision(ctx); err != nil {
		t.Fatal(err)
	}
}

func wantStatus(t *testing.T, err error, status int, reason string) {
	t.Helper()
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != status || ae.Reason != reason {
		t.Fatalf("error %v, want %d %s", err, status, reason)
	}
}

func TestStaticTokens(t *testing.T) {
	good, goodHash, _ := NewToken()
	old, oldHash, _ := NewToken()
	fileTok, fileHash, _ := NewToken()
	dir := t.TempDir()
	file := filepath.Join(dir, "tokens")
	if err := os.WriteFile(file, []byte("# tokens\n\nfiled "+fileHash+" actions=read zones=*.customer.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZONEAPI_TEST_PLAIN", "plain-token-from-env")
	s := &Static{
		Tokens: []StaticToken{
			{Name: "acme", Hash: goodHash, Scope: Scope{Actions: []string{"records"}, Types: []string{"TXT"}}},
			{Name: "old", Hash: oldHash, Expires: "2020-01-01T00:00:00Z"},
			{Name: "env", Hash: "{env.ZONEAPI_TEST_PLAIN}"},
		},
		TokenFile: file,
	}
	provisionStatic(t, s)
	id, err := s.Authenticate(context.Background(), good)
	if err != nil || id.ID != "static:acme" || !id.Grant.AllowsRecord("x.example.com.", "TXT") || id.Grant.AllowsAction(ActionZones) {
		t.Fatalf("good token: %+v, %v", id, err)
	}
	_, err = s.Authenticate(context.Background(), old)
	wantStatus(t, err, http.StatusUnauthorized, "expired_token")
	_, err = s.Authenticate(context.Background(), good+"x")
	wantStatus(t, err, http.StatusUnauthorized, "unknown_token")
	if id, err := s.Authenticate(context.Background(), fileTok); err != nil || id.ID != "static:filed" || id.Grant.AllowsZone("other.test") {
		t.Fatalf("file token: %+v, %v", id, err)
	}
	if id, err := s.Authenticate(context.Background(), "plain-token-from-env"); err != nil || id.ID != "static:env" {
		t.Fatalf("env token: %+v, %v", id, err)
	}
}

func TestStaticProvisionErrors(t *testing.T) {
	_, h, _ := NewToken()
	for name, s := range map[string]*Static{
		"none":      {},
		"bad hash":  {Tokens: []StaticToken{{Name: "a", Hash: "sha256:zz"}}},
		"no name":   {Tokens: []StaticToken{{Hash: h}}},
		"duplicate": {Tokens: []StaticToken{{Name: "a", Hash: h}, {Name: "a", Hash: h}}},
		"expires":   {Tokens: []StaticToken{{Name: "a", Hash: h, Expires: "tomorrow"}}},
		"scope":     {Tokens: []StaticToken{{Name: "a", Hash: h, Scope: Scope{Actions: []string{"write"}}}}},
		"empty env": {Tokens: []StaticToken{{Name: "a", Hash: "{env.ZONEAPI_SURELY_UNSET}"}}},
		"no file":   {TokenFile: "/nonexistent/tokens"},
	} {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		if err := s.Provision(ctx); err == nil {
			t.Errorf("%s: provisioned", name)
		}
		cancel()
	}
}

func TestStaticCaddyfile(t *testing.T) {
	_, h, _ := NewToken()
	d := caddyfile.NewTestDispenser(`static {
		token acme ` + h + ` {
			expires 2030-01-01T00:00:00Z
			actions records
			names _acme-challenge.*
			types TXT
		}
		token_file /etc/zoneapi/tokens
	}`)
	var s Static
	if err := s.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if len(s.Tokens) != 1 || s.Tokens[0].Scope.String() != "actions=records names=_acme-challenge.* types=TXT" || s.TokenFile != "/etc/zoneapi/tokens" {
		t.Fatalf("%+v", s)
	}
	for _, bad := range []string{
		`static { token acme plaintoken }`,
		`static { token acme ` + h + ` { actions write } }`,
		`static { token acme ` + h + ` { expires soon } }`,
		`static { what }`,
	} {
		var s Static
		if err := s.UnmarshalCaddyfile(caddyfile.NewTestDispenser(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestMintToken(t *testing.T) {
	var out bytes.Buffer
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	if err := MintToken(&out, "acme", "actions=records zones=example.com names=_acme-challenge.* types=TXT", "30d", now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	token, line := lines[1], lines[4]
	toks, err := ParseTokenFile([]byte(line))
	if err != nil || len(toks) != 1 {
		t.Fatalf("minted line %q: %v", line, err)
	}
	if toks[0].Expires != "2026-12-26T00:00:00Z" || toks[0].Hash != HashToken(token) {
		t.Errorf("minted %+v", toks[0])
	}
	s := &Static{Tokens: toks}
	provisionStatic(t, s)
	if id, err := s.Authenticate(context.Background(), token); err != nil || id.ID != "static:acme" {
		t.Errorf("minted token not accepted: %v", err)
	}
	if _, rej, _ := BearerToken([]string{"Bearer " + token}); rej != "" {
		t.Errorf("minted token is not a well-formed bearer token: %s", rej)
	}
	if err := MintToken(&out, "bad name", "", "", now); err == nil {
		t.Error("bad name accepted")
	}
}
