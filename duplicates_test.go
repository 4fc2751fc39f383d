package zoneapi

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// knownDuplicates are functions defined twice, with the same signature and
// body, that are still to be made one; each entry lists the places of one
// such function. Remove an entry when its copies are gone; do not add one:
// a helper that two packages need lives once, in the lower of the two
// layers (TestLayering) or in a base package.
var knownDuplicates = [][]string{}

// TestFunctionsDefinedOnce: no two functions of the module's non-test
// files have the same signature and body (of two statements or more),
// except knownDuplicates. A copy drifts from its original (a fix made in
// one place only); isASCII and an ASCII case-folding compare were kept in
// both zonemodel and module until they became zonemodel.IsASCII and
// zonemodel.FoldEqual.
func TestFunctionsDefinedOnce(t *testing.T) {
	bodies := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Build output, run state and other modules (the peer
			// suites) are not the module's code.
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "build" || n == "state" || n == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || len(fd.Body.List) < 2 {
				continue
			}
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fd.Type); err != nil {
				return err
			}
			b.WriteByte(' ')
			if err := printer.Fprint(&b, fset, fd.Body); err != nil {
				return err
			}
			bodies[b.String()] = append(bodies[b.String()], filepath.ToSlash(p)+":"+fd.Name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var found [][]string
	for _, places := range bodies {
		if len(places) > 1 {
			slices.Sort(places)
			found = append(found, places)
			if !slices.ContainsFunc(knownDuplicates, func(k []string) bool { return slices.Equal(k, places) }) {
				t.Errorf("the same function is defined in %s: keep one (in the lower layer, or a base package)", strings.Join(places, " and "))
			}
		}
	}
	for _, k := range knownDuplicates {
		if !slices.ContainsFunc(found, func(f []string) bool { return slices.Equal(f, k) }) {
			t.Errorf("knownDuplicates lists %s, which are no longer the same function: remove the entry", strings.Join(k, " and "))
		}
	}
}
