package zoneapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// packageStateExceptions are the package-level variables of non-test
// packages that hold mutable state today, keyed "dir.name", each with why
// it is still there. An exception that no longer occurs fails the test, so
// the list only shrinks. Issue 26 moves each into the object that owns it.
var packageStateExceptions = map[string]string{
	"internal/localcall.mu":      "guards servers",
	"internal/localcall.servers": "the zone_api handlers of the running configurations, for in-process calls: a registry, as Caddy's own module registry",
	"jsonbody.customTypes":       "a memo of a pure function of a reflect type (which decoder a type needs), as encoding/json's own caches",
	"jsonbody.fieldTables":       "a memo of a pure function of a reflect type (its field table), as encoding/json's own caches",
	"rndc.serial":                "the control channel's message serial, random at start and numbered across all clients of the process, so that no two requests of the process to a named share one",
	"zonestore.lockFiles":        "the lock file descriptors of the process: open file description locks belong to the process, which must hold one per file",
	"zonestore.processLocks":     "the in-process halves of the zone locks: every Store of a directory in the process must share them, as the lock is the process's",
}

// TestNoPackageState fails when a non-test package declares a mutable
// package-level variable: state that outlives a request belongs to the
// object that uses it, or to a caddy.UsagePool or registry with an owner
// (issue 26). Allowed, by what the declaration says:
//
//   - interface guards (var _ I = (*T)(nil)) and every blank variable;
//   - values of constructors that give immutable or concurrency-safe,
//     owned values (allowedConstructors: errors.New, fmt.Errorf,
//     regexp.MustCompile, prometheus.NewDesc, caddy.NewUsagePool, …), and an
//     error variable of another package (ErrX = pkg.ErrY);
//   - lookup tables, sentinel values and metric collectors (a composite
//     literal or its address, or the value of a function literal called
//     in the declaration), provided
//     no code of the package, tests included, assigns to them, to an
//     element or field of them, appends to them, deletes from or clears
//     them, or takes their address;
//   - a variable declared without a value that is set only in an init
//     function or in a function a package sync.Once runs (set once), and
//     the sync.Once itself.
//
// Anything else (a sync.Mutex or sync.Map, an atomic, the value of another
// call, a literal, a function variable tests replace) is mutable package
// state and must be in packageStateExceptions with its reason. This is
// stricter than "no function writes it" for literals: a value never
// written is a constant, and one that tests write is a test seam, which
// belongs to the object it configures. Packages of TestLayering's test
// support layer are not checked (testSupport). The writes are found by
// name in the package's own files: an exported table written by another
// package is not seen.
func TestNoPackageState(t *testing.T) {
	pkgs := parseModulePackages(t, ".")
	var problems []string
	used := map[string]bool{}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		if testSupport(dir) {
			continue
		}
		for _, v := range packageStateProblems(pkgs[dir]) {
			key := dir + "." + v.name
			if _, ok := packageStateExceptions[key]; ok {
				used[key] = true
				continue
			}
			problems = append(problems, key+": "+v.why)
		}
	}
	for key, why := range packageStateExceptions {
		if !used[key] {
			problems = append(problems, "the exception "+key+" ("+why+") no longer occurs: remove it from packageStateExceptions")
		}
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// testSupport reports whether dir is a package of TestLayering's test
// support layer (zoneapitest/, the fakes, integration): built into no
// binary, its state (a test process's reserved ports, the caddy binary
// found once) is the test process's by nature.
func testSupport(dir string) bool {
	for _, l := range layering {
		if l.name == "test support" {
			return slices.Contains(l.pkgs, dir)
		}
	}
	return false
}

// TestNoPackageStateCatchesState runs the check on a fixture
// (testdata/pkgstate) that declares one variable of each allowed and each
// refused kind; the refused ones are named "bad*".
func TestNoPackageStateCatchesState(t *testing.T) {
	pkgs := parseModulePackages(t, "testdata/pkgstate")
	var got []string
	for _, v := range packageStateProblems(pkgs["."]) {
		got = append(got, v.name)
	}
	slices.Sort(got)
	want := []string{"badAddress", "badAppend", "badAssigned", "badCall", "badClear", "badCounted", "badCounter", "badDelete",
		"badElement", "badField", "badFunc", "badIncrement", "badLiteral", "badLocked", "badMap", "badMutex", "badPointer", "badTestWrite"}
	if !slices.Equal(got, want) {
		t.Errorf("flagged %v\nwant      %v", got, want)
	}
}

// goPackage is the parsed Go files of one directory: its non-test files,
// whose variables are checked, and its test files, whose writes count.
type goPackage struct {
	files, tests []*ast.File
}

// parseModulePackages parses every package under root of this Go module
// (not the peer modules under integration/, nor testdata), keyed by its
// directory relative to root ("." for root itself).
func parseModulePackages(t *testing.T, root string) map[string]*goPackage {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string]*goPackage{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "build" || name == "state") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		p := pkgs[dir]
		if p == nil {
			p = &goPackage{}
			pkgs[dir] = p
		}
		if strings.HasSuffix(path, "_test.go") {
			p.tests = append(p.tests, f)
		} else {
			p.files = append(p.files, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// stateVar is a package-level variable the check refuses, and why.
type stateVar struct{ name, why string }

// allowedConstructors are the calls whose values may be package variables.
// Each gives a value that is never written after it is built, or one that
// is safe for concurrent use and has an owner (a UsagePool's entries are
// owned by those who hold them); a message.Printer keeps no state between
// calls.
var allowedConstructors = []string{"errors.New", "fmt.Errorf", "regexp.MustCompile",
	"strings.NewReplacer", "message.NewPrinter", "prometheus.NewDesc", "caddy.NewUsagePool"}

// packageStateProblems lists the package-level variables of p's non-test
// files that TestNoPackageState refuses.
func packageStateProblems(p *goPackage) []stateVar {
	if p == nil {
		return nil
	}
	vars := map[string]varDecl{}
	var onces []string
	for _, f := range p.files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name == "_" {
						continue
					}
					var value ast.Expr
					if i < len(vs.Values) {
						value = vs.Values[i]
					}
					vars[n.Name] = varDecl{vs, value}
					if value == nil && exprString(vs.Type) == "sync.Once" {
						onces = append(onces, n.Name)
					}
				}
			}
		}
	}
	written := map[string]string{}
	for _, f := range append(slices.Clone(p.files), p.tests...) {
		for name, how := range writesOutsideInit(f, vars, onces) {
			written[name] = how
		}
	}
	for name, how := range changedThroughMethods(p, vars) {
		if _, ok := written[name]; !ok {
			written[name] = how
		}
	}
	var out []stateVar
	for name, d := range vars {
		if how, ok := written[name]; ok {
			out = append(out, stateVar{name, "written after initialisation (" + how + ")"})
			continue
		}
		if why := refusedDeclaration(d.spec.Type, d.value); why != "" {
			out = append(out, stateVar{name, why})
		}
	}
	slices.SortFunc(out, func(a, b stateVar) int { return strings.Compare(a.name, b.name) })
	return out
}

// refusedDeclaration says why a variable of type typ and initial value
// value is mutable state, or "" if its declaration is allowed.
func refusedDeclaration(typ, value ast.Expr) string {
	switch v := value.(type) {
	case nil:
		ts := exprString(typ)
		if ts == "sync.Once" {
			return ""
		}
		if strings.HasPrefix(ts, "sync.") || strings.HasPrefix(ts, "atomic.") {
			return "a " + ts + " is mutable state"
		}
		return ""
	case *ast.CompositeLit:
		return ""
	case *ast.UnaryExpr:
		if _, ok := v.X.(*ast.CompositeLit); ok && v.Op == token.AND {
			return "" // a table or a sentinel value, by its address
		}
	case *ast.CallExpr:
		if _, ok := v.Fun.(*ast.FuncLit); ok {
			return "" // a table built once, by a function run at initialisation
		}
		if slices.Contains(allowedConstructors, exprString(v.Fun)) {
			return ""
		}
		return "the value of " + exprString(v.Fun) + "(…) may be mutable: only " + strings.Join(allowedConstructors, ", ") + " are allowed"
	case *ast.SelectorExpr:
		if strings.HasPrefix(v.Sel.Name, "Err") {
			return "" // an error value of another package
		}
	}
	return "a variable whose value is not a table, an error, a compiled regexp or a descriptor: make it a constant, or give it an owner"
}

// varDecl is a package-level variable's declaration and its value (nil
// when it has none).
type varDecl struct {
	spec  *ast.ValueSpec
	value ast.Expr
}

// writesOutsideInit finds, in f, the writes to vars outside init functions
// and outside functions a package sync.Once (onces) runs: assignments to a
// variable or its elements or fields, ++ and --, append, delete, clear,
// and taking its address. It maps each variable written to the first way.
// A local variable of the same name counts as the package's: rename it.
func writesOutsideInit(f *ast.File, vars map[string]varDecl, onces []string) map[string]string {
	written := map[string]string{}
	note := func(target ast.Expr, how string) {
		if name := rootName(target); name != "" {
			if _, ok := vars[name]; ok {
				if _, seen := written[name]; !seen {
					written[name] = how
				}
			}
		}
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			return !(x.Recv == nil && x.Name.Name == "init")
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Do" && slices.Contains(onces, exprString(sel.X)) {
				return false // set once
			}
			if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) > 0 {
				switch id.Name {
				case "append", "delete", "clear":
					note(x.Args[0], id.Name)
				}
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				return true
			}
			for _, l := range x.Lhs {
				note(l, "assigned")
			}
		case *ast.IncDecStmt:
			note(x.X, x.Tok.String())
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				note(x.X, "address taken")
			}
		case *ast.RangeStmt:
			if x.Tok == token.ASSIGN {
				note(x.Key, "assigned by range")
				note(x.Value, "assigned by range")
			}
		}
		return true
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			continue // a package variable's own value is its declaration
		}
		ast.Inspect(d, visit)
	}
	return written
}

// changedThroughMethods finds the composite values of vars that can
// change in place: a struct with a lock or an atomic (a sync or
// sync/atomic field other than sync.Once), or a value of a named type of
// the package whose method with a pointer receiver the package calls on
// it. It maps each to why.
func changedThroughMethods(p *goPackage, vars map[string]varDecl) map[string]string {
	locked := map[string]bool{}         // named struct types with a lock or an atomic
	ptrMethods := map[string][]string{} // named type -> methods with a pointer receiver
	for _, f := range p.files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok && hasLock(ts.Type) {
						locked[ts.Name.Name] = true
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 {
					if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
						t := exprString(star.X)
						ptrMethods[t] = append(ptrMethods[t], d.Name.Name)
					}
				}
			}
		}
	}
	out := map[string]string{}
	for name, d := range vars {
		lit, ok := d.value.(*ast.CompositeLit)
		if u, isAddr := d.value.(*ast.UnaryExpr); isAddr && u.Op == token.AND {
			lit, ok = u.X.(*ast.CompositeLit)
		}
		if !ok {
			continue
		}
		if hasLock(lit.Type) || locked[exprString(lit.Type)] {
			out[name] = "it holds a lock or an atomic: state changed in place"
			continue
		}
		methods := ptrMethods[exprString(lit.Type)]
		if len(methods) == 0 {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && slices.Contains(methods, sel.Sel.Name) {
						out[name] = "its method " + sel.Sel.Name + " has a pointer receiver: state changed in place"
					}
				}
				return true
			})
		}
	}
	return out
}

// hasLock reports whether t is a struct type with a field (embedded or
// named) of package sync or sync/atomic other than sync.Once.
func hasLock(t ast.Expr) bool {
	st, ok := t.(*ast.StructType)
	if !ok {
		return false
	}
	for _, f := range st.Fields.List {
		ts := exprString(f.Type)
		if ts != "sync.Once" && (strings.HasPrefix(ts, "sync.") || strings.HasPrefix(ts, "atomic.")) {
			return true
		}
	}
	return false
}

// rootName is the variable an assignment target or an address belongs to:
// x for x, x[i], x.f, x.f[i], *x; "" for anything else.
func rootName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// exprString renders a type or function expression as written (pkg.Name,
// *T, []T), enough to compare with names.
func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	case *ast.IndexExpr:
		return exprString(x.X)
	case *ast.ArrayType:
		return "[]" + exprString(x.Elt)
	case *ast.MapType:
		return "map[" + exprString(x.Key) + "]" + exprString(x.Value)
	}
	return ""
}
