package module

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxHandlerMethods bounds the methods of Handler, the Caddy module: its
// configuration, Provision/Validate/Cleanup, ServeHTTP and routing,
// authentication and scope checks. A route's handler belongs to its
// front end (package rest for the REST API); zone logic belongs to the zone service
// (package zoneservice). Issue 16 asked for fewer than 30 (there were 82).
const maxHandlerMethods = 29

// TestHandlerStaysGlue counts the methods declared on Handler in the
// package's non-test files.
func TestHandlerStaysGlue(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			typ := fd.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.Name == "Handler" {
				methods = append(methods, f+": "+fd.Name.Name)
			}
		}
	}
	sort.Strings(methods)
	if len(methods) > maxHandlerMethods {
		t.Errorf("Handler has %d methods, at most %d: put a route's handler in its front end (package rest) and zone logic in the zone service; they are:\n%s",
			len(methods), maxHandlerMethods, strings.Join(methods, "\n"))
	}
}
