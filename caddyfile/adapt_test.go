// Package caddyfile_test checks that every zone_api Caddyfile option adapts
// to the expected JSON. Each *.caddyfiletest file holds a Caddyfile, a line
// of dashes, and the expected JSON; an expected text that does not start
// with '{' is an error message the adaptation must fail with. Run with
// -update to rewrite the expected JSON of passing-shape fixtures.
package caddyfile_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/standard"
	_ "github.com/caddyserver/caddy/v2/modules/metrics"

	_ "github.com/zoneapi/caddy-zoneapi"
)

var update = flag.Bool("update", false, "rewrite expected JSON in the fixtures")

const separator = "----------"

func TestAdaptFixtures(t *testing.T) {
	files, err := filepath.Glob("*.caddyfiletest")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures found: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(file, ".caddyfiletest"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want, ok := strings.Cut(string(raw), "\n"+separator+"\n")
			if !ok {
				t.Fatalf("%s: no %q separator line", file, separator)
			}
			want = strings.TrimSpace(want)
			got, adaptErr := adapt(input + "\n")
			if !strings.HasPrefix(want, "{") {
				if adaptErr == nil {
					t.Fatalf("adapting succeeded, want an error containing %q", want)
				}
				if !strings.Contains(adaptErr.Error(), want) {
					t.Fatalf("error %q does not contain %q", adaptErr, want)
				}
				return
			}
			if adaptErr != nil {
				t.Fatalf("adapting: %v", adaptErr)
			}
			if *update {
				if err := os.WriteFile(file, []byte(input+"\n"+separator+"\n"+got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("adapted JSON differs\n--- got ---\n%s\n--- want ---\n%s", got, want)
			}
		})
	}
}

// adapt runs the Caddyfile adapter and indents the result with tabs.
func adapt(input string) (string, error) {
	out, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(input), nil)
	if err != nil {
		return "", err
	}
	for _, w := range warnings {
		return "", &warningError{w}
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, out, "", "\t"); err != nil {
		return "", err
	}
	return buf.String(), nil
}

type warningError struct{ w caddyconfig.Warning }

func (e *warningError) Error() string { return "warning: " + e.w.String() }
