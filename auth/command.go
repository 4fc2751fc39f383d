package auth

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "zoneapi-token",
		Usage: "--name <name> [--scope '<key=value…>'] [--expires <duration>]",
		Short: "Mints a token for the zone_api static auth mode",
		Long: `
Prints a new random token once, and the lines that make the static auth
mode accept it: a token_file line and the equivalent Caddyfile block. Only
the token's SHA-256 hash goes into the configuration; keep the token
itself where the client reads it (it cannot be recovered from the hash).

  caddy zoneapi-token --name acme \
      --scope 'actions=records zones=example.com names=_acme-challenge.* types=TXT' \
      --expires 720h
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("name", "", "the token's name (its identity in logs and the audit trail)")
			cmd.Flags().String("scope", "", "the token's scope: actions=… zones=…[@view] views=… names=… types=… (default: everything)")
			cmd.Flags().String("expires", "", "lifetime, e.g. 720h or 30d (default: no expiry)")
			cmd.RunE = func(cmd *cobra.Command, _ []string) error {
				cmd.SilenceUsage = true
				name, _ := cmd.Flags().GetString("name")
				scope, _ := cmd.Flags().GetString("scope")
				expires, _ := cmd.Flags().GetString("expires")
				return MintToken(cmd.OutOrStdout(), name, scope, expires, time.Now())
			}
		},
	})
}

var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]*$`)

// MintToken writes a new token and its configuration lines to w.
func MintToken(w io.Writer, name, scopeText, lifetime string, now time.Time) error {
	if !tokenName.MatchString(name) {
		return fmt.Errorf("--name: want letters, digits and . _ : @ -, got %q", name)
	}
	sc, err := ParseScope(scopeText)
	if err != nil {
		return fmt.Errorf("--scope: %v", err)
	}
	if _, err := sc.Compile(); err != nil {
		return fmt.Errorf("--scope: %v", err)
	}
	exp := ""
	if lifetime != "" {
		d, err := caddy.ParseDuration(lifetime)
		if err != nil || d <= 0 {
			return fmt.Errorf("--expires: want a positive duration such as 720h or 30d, got %q", lifetime)
		}
		exp = now.Add(d).UTC().Format(time.RFC3339)
	}
	token, hash, err := NewToken()
	if err != nil {
		return err
	}
	line := name + " " + hash
	if exp != "" {
		line += " expires=" + exp
	}
	if s := sc.String(); s != "" {
		line += " " + s
	}
	var block strings.Builder
	fmt.Fprintf(&block, "token %s %s {\n", name, hash)
	if exp != "" {
		fmt.Fprintf(&block, "\texpires %s\n", exp)
	}
	for _, f := range []struct {
		k string
		v []string
	}{{"actions", sc.Actions}, {"zones", sc.Zones}, {"views", sc.Views}, {"names", sc.Names}, {"types", sc.Types}} {
		if len(f.v) > 0 {
			fmt.Fprintf(&block, "\t%s %s\n", f.k, strings.Join(f.v, " "))
		}
	}
	block.WriteString("}\n")
	_, err = fmt.Fprintf(w, "token (shown once; give it to the client):\n%s\n\ntoken_file line:\n%s\n\nor inside `auth static { … }` in the Caddyfile:\n%s", token, line, block.String())
	return err
}
