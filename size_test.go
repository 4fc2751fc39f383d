package zoneapi

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFileLines is the most lines a non-test Go file may have (issue 26):
// a file past it holds more than one thing, and is split by concern.
const maxFileLines = 600

// moduleLinesGoal is what module/ is to become (issue 26): Caddy glue
// (registration, Provision/Validate/Cleanup, the Caddyfile, mounting the
// front ends, state shared across reloads, metrics and logs) in at most
// this many non-test lines, the front ends in packages of their own.
const moduleLinesGoal = 1500

// moduleLinesCeiling is a ratchet on module/'s non-test lines while the
// front ends move out: module/ may not grow past it, and once module/ is
// moduleLinesSlack lines or more below it the test asks for the ceiling
// to be lowered to the count, so it only goes down, to moduleLinesGoal.
const (
	moduleLinesCeiling = 1251
	moduleLinesSlack   = 100
)

// longFileExceptions are the non-test Go files over maxFileLines today,
// each with its line count then, which it may not exceed, and why it is
// not split yet. An exception whose file is no longer over maxFileLines
// fails the test, so the list only shrinks.
var longFileExceptions = map[string]longFile{}

type longFile struct {
	lines int
	why   string
}

// TestFileSizes fails when a non-test Go file of the repository (the
// modules under integration/ included) is over maxFileLines and not a
// listed exception, when an exception has grown or is no longer over the
// limit, and when module/'s non-test lines break the ratchet above.
func TestFileSizes(t *testing.T) {
	lines := goFileLines(t, ".")
	for _, p := range sizeProblems(lines, longFileExceptions, moduleLinesCeiling) {
		t.Error(p)
	}
	t.Logf("module/: %d non-test lines (ceiling %d, goal %d)", moduleLines(lines), moduleLinesCeiling, moduleLinesGoal)
}

// TestFileSizesCatchesProblems runs sizeProblems on made-up trees: each
// kind of problem is found, and a tree within the limits has none.
func TestFileSizesCatchesProblems(t *testing.T) {
	exc := map[string]longFile{"a/big.go": {700, "test"}}
	cases := []struct {
		name    string
		lines   map[string]int
		ceiling int
		want    []string
	}{
		{"within the limits", map[string]int{"a/big.go": 700, "a/ok.go": 600, "module/m.go": 500, "module/n.go": 500, "module/m_test.go": 5000}, 1050, nil},
		{"a long file", map[string]int{"a/big.go": 700, "b/long.go": 601}, 1500, []string{"b/long.go: 601 lines"}},
		{"a test file is not counted", map[string]int{"a/big.go": 700, "b/long_test.go": 9000}, 1500, nil},
		{"an exception that grew", map[string]int{"a/big.go": 701}, 1500, []string{"a/big.go: 701 lines, more than the 700"}},
		{"an exception split", map[string]int{"a/big.go": 600}, 1500, []string{"a/big.go is no longer over 600"}},
		{"an exception gone", map[string]int{}, 1500, []string{"a/big.go is no longer over 600"}},
		{"module/ grew", map[string]int{"a/big.go": 700, "module/m.go": 501, "module/n.go": 500, "module/x.go": 100}, 1100, []string{"module/: 1101 non-test lines, over its ceiling 1100"}},
		{"module/ shrank", map[string]int{"a/big.go": 700, "module/m.go": 500, "module/n.go": 500, "module/o.go": 500, "module/p.go": 300}, 2000, []string{"lower moduleLinesCeiling to 1800"}},
		{"module/ shrank a little", map[string]int{"a/big.go": 700, "module/m.go": 500, "module/n.go": 500, "module/o.go": 500, "module/p.go": 401}, 2000, nil},
		{"module/ shrank below the goal", map[string]int{"a/big.go": 700, "module/m.go": 500, "module/n.go": 500}, 2000, []string{"lower moduleLinesCeiling to 1500"}},
		{"module/ at the goal", map[string]int{"a/big.go": 700, "module/m.go": 500, "module/n.go": 500}, 1500, nil},
		{"module/ over the goal at the goal", map[string]int{"a/big.go": 700, "module/m.go": 501, "module/n.go": 500, "module/o.go": 500}, 1500, []string{"module/: 1501 non-test lines, over its ceiling 1500"}},
		{"module/'s subpackages are not module/", map[string]int{"a/big.go": 700, "module/m.go": 500, "module/sub/s.go": 500, "module/sub/t.go": 500, "module/sub/u.go": 500}, 1100, nil},
	}
	for _, c := range cases {
		got := sizeProblems(c.lines, exc, c.ceiling)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q, want %d problems like %q", c.name, got, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q does not say %q", c.name, got[i], w)
			}
		}
	}
}

// sizeProblems checks line counts of Go files, keyed by slash-separated
// path from the repository's root, against the rules above.
func sizeProblems(lines map[string]int, exceptions map[string]longFile, ceiling int) []string {
	var problems []string
	for _, path := range slices.Sorted(maps.Keys(lines)) {
		n := lines[path]
		if strings.HasSuffix(path, "_test.go") || n <= maxFileLines {
			continue
		}
		e, ok := exceptions[path]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: %d lines, over %d: split it by concern (issue 26)", path, n, maxFileLines))
		case n > e.lines:
			problems = append(problems, fmt.Sprintf("%s: %d lines, more than the %d its exception allows (over %d: split it rather than grow it)", path, n, e.lines, maxFileLines))
		}
	}
	for _, path := range slices.Sorted(maps.Keys(exceptions)) {
		if n, ok := lines[path]; !ok || n <= maxFileLines {
			problems = append(problems, fmt.Sprintf("%s is no longer over %d lines (%d): remove it from longFileExceptions", path, maxFileLines, n))
		}
	}
	switch m := moduleLines(lines); {
	case m > ceiling:
		problems = append(problems, fmt.Sprintf("module/: %d non-test lines, over its ceiling %d (goal %d, issue 26): move front-end code out of module/, do not add to it", m, ceiling, moduleLinesGoal))
	case ceiling > moduleLinesGoal && m <= ceiling-moduleLinesSlack:
		problems = append(problems, fmt.Sprintf("module/: %d non-test lines, %d under its ceiling: lower moduleLinesCeiling to %d (the ratchet only goes down, to %d)", m, ceiling-m, max(m, moduleLinesGoal), moduleLinesGoal))
	}
	return problems
}

// moduleLines is the sum of module/'s non-test Go files' lines (the
// package itself, not folders under it).
func moduleLines(lines map[string]int) int {
	sum := 0
	for path, n := range lines {
		if filepath.ToSlash(filepath.Dir(path)) == "module" && !strings.HasSuffix(path, "_test.go") {
			sum += n
		}
	}
	return sum
}

// goFileLines counts the lines of every Go file under root, as wc -l
// does, keyed by slash-separated path; .git, build output and run state
// are skipped.
func goFileLines(t *testing.T, root string) map[string]int {
	t.Helper()
	lines := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "build" || name == "state") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		lines[filepath.ToSlash(rel)] = bytes.Count(b, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}
