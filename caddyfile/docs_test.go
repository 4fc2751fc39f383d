package caddyfile_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCaddyfilesAdapt adapts every complete Caddyfile shown in the
// README and the docs/ pages, so that what a reader copies works: a
// ```caddyfile block that opens with a site address or the global options,
// not a fragment (a directive's block, `…`) or a syntax summary with
// <placeholders>. It must also be formatted as `caddy fmt` would.
func TestDocsCaddyfilesAdapt(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	files = append(files, "../README.md")
	block := regexp.MustCompile("(?s)```caddyfile\n(.*?)```")
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(raw), -1) {
			src := m[1]
			if !completeCaddyfile(src) {
				continue
			}
			n++
			if _, err := adapt(src); err != nil {
				t.Errorf("%s: the Caddyfile does not adapt: %v\n%s", filepath.Base(f), err, src)
			}
		}
	}
	if n == 0 {
		t.Fatal("no complete Caddyfile found in README.md or docs/ (the README shows one)")
	}
	t.Logf("%d Caddyfiles adapted", n)
}

// completeCaddyfile reports whether src is a whole Caddyfile: its first
// line that is not a comment opens the global options or a site (an
// address with a dot or a colon), and it has no placeholders or ellipses.
func completeCaddyfile(src string) bool {
	if strings.ContainsAny(src, "<…") {
		return false
	}
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		first := strings.Fields(line)[0]
		return first == "{" || strings.ContainsAny(first, ".:")
	}
	return false
}
