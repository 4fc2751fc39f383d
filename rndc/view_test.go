package rndc

import (
	"context"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"go/types"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestViewCommandTexts: every zone command of a ViewClient names the zone
// as `zone IN view`; the Client's own commands and InView("") name no
// view; bad view names are refused before anything is sent.
func TestViewCommandTexts(t *testing.T) {
	key := testKey(t, HMACSHA256)
	f := newFake(t, key, "ok")
	var mu sync.Mutex
	var seen []string
	f.reply = func(typ string) (string, string, string) {
		mu.Lock()
		seen = append(seen, typ)
		mu.Unlock()
		if strings.HasPrefix(typ, "showzone ") {
			return "0", "", `zone "ex.test" { type primary; file "/z/ex.test.zone"; };`
		}
		if strings.HasPrefix(typ, "zonestatus ") {
			return "0", "", "name: ex.test\ntype: primary\nfiles: /z/ex.test.zone\nserial: 1\nnodes: 2\nlast loaded: Thu, 26 Nov 2026 10:00:00 GMT\nsecure: no\ndynamic: yes\nreconfigurable via modzone: yes"
		}
		return "0", "", "ok"
	}
	c := &Client{Addr: f.addr(), Key: key, Timeout: 2 * time.Second}
	ctx := context.Background()
	zs := &ZoneStatement{Name: "ex.test", Clauses: []Clause{{Name: "type", Value: Words("primary")}}}
	run := func(v interface {
		ZoneStatus(context.Context, string) (*ZoneStatus, error)
		ShowZoneStatement(context.Context, string) (*ZoneStatement, error)
		AddZone(context.Context, *ZoneStatement) (string, error)
		ModZone(context.Context, *ZoneStatement) (string, error)
		DelZone(context.Context, string, bool) (string, error)
		Reload(context.Context, string) (string, error)
		Freeze(context.Context, string) (string, error)
		Thaw(context.Context, string) (string, error)
		Notify(context.Context, string) (string, error)
		Retransfer(context.Context, string) (string, error)
	}) {
		t.Helper()
		if _, err := v.ZoneStatus(ctx, "ex.test"); err != nil {
			t.Fatal(err)
		}
		if _, err := v.ShowZoneStatement(ctx, "ex.test"); err != nil {
			t.Fatal(err)
		}
		_, _ = v.AddZone(ctx, zs)
		_, _ = v.ModZone(ctx, zs)
		_, _ = v.DelZone(ctx, "ex.test", true)
		_, _ = v.Reload(ctx, "ex.test")
		_, _ = v.Freeze(ctx, "ex.test")
		_, _ = v.Thaw(ctx, "ex.test")
		_, _ = v.Notify(ctx, "ex.test")
		_, _ = v.Retransfer(ctx, "ex.test")
		_, _ = v.Reload(ctx, "")
	}
	want := func(view string) []string {
		z := "ex.test"
		if view != "" {
			z += " IN " + view
		}
		return []string{"zonestatus " + z, "showzone " + z, "addzone " + z + " { type primary; };",
			"modzone " + z + " { type primary; };", "delzone -clean " + z, "reload " + z, "freeze " + z,
			"thaw " + z, "notify " + z, "retransfer " + z, "reload"}
	}
	for _, tc := range []struct {
		name, view string
		run        func()
	}{
		{"Client", "", func() { run(c) }},
		{"InView empty", "", func() { run(c.InView("")) }},
		{"InView internal", "internal", func() { run(c.InView("internal")) }},
		{"InView odd", "_lan-2", func() { run(c.InView("_lan-2")) }},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		tc.run()
		mu.Lock()
		got := strings.Join(seen, "\n")
		mu.Unlock()
		if w := strings.Join(want(tc.view), "\n"); got != w {
			t.Errorf("%s: commands sent\n%s\nwant\n%s", tc.name, got, w)
		}
	}
	// Refused before anything is sent.
	mu.Lock()
	seen = nil
	mu.Unlock()
	for _, bad := range []string{"in view", "a;b", "x}", `"q"`, "-x", "a.b", strings.Repeat("v", 65), "é"} {
		v := c.InView(bad)
		if _, err := v.ZoneStatus(ctx, "ex.test"); err == nil || !strings.Contains(err.Error(), "view") {
			t.Errorf("view %q: ZoneStatus error %v, want an invalid view name", bad, err)
		}
		if _, err := v.AddZone(ctx, zs); err == nil {
			t.Errorf("view %q: AddZone sent", bad)
		}
		if _, err := v.Freeze(ctx, "ex.test"); err == nil {
			t.Errorf("view %q: Freeze sent", bad)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Errorf("commands sent for bad view names: %q", seen)
	}
}

// TestViewErrors classifies named's answers about views (texts of BIND
// 9.18).
func TestViewErrors(t *testing.T) {
	multiple := &Error{Command: "zonestatus", Err: "multiple", Text: "zone 'ex.com' was found in multiple views"}
	noView := &Error{Command: "freeze", Err: "not found", Text: "no matching view 'nope'"}
	noDefault := &Error{Command: "addzone", Err: "not found", Text: "no matching view found for '_default'"}
	noZone := &Error{Command: "zonestatus", Err: "not found", Text: "no matching zone 'x' in any view"}
	if !IsMultipleViews(multiple) || IsMultipleViews(noView) || IsMultipleViews(noZone) {
		t.Error("IsMultipleViews")
	}
	if !IsNoSuchView(noView) || !IsNoSuchView(noDefault) || IsNoSuchView(noZone) || IsNoSuchView(multiple) {
		t.Error("IsNoSuchView")
	}
	// A missing view is not a missing zone: nothing may conclude from it
	// that the zone is gone.
	if IsNotFound(noView) || IsNotFound(noDefault) || !IsNotFound(noZone) {
		t.Error("IsNotFound of a missing view")
	}
}

// TestIntegrationViews: against a real named with two views, the same
// zone name is added to each with InView, each view's commands reach its
// own zone, a command without a view is refused as ambiguous, a missing
// view is IsNoSuchView, and deleting one view's zone leaves the other's.
func TestIntegrationViews(t *testing.T) {
	s := testbind.Start(t, &testbind.Options{Views: []testbind.View{{Name: "internal", Key: true}, {Name: "external"}}})
	cfg, err := LoadConfig(s.RNDCConfFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := cfg.Key("")
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{Addr: s.ControlAddr, Key: key, Timeout: 5 * time.Second}
	ctx := context.Background()
	if _, err := c.AddZone(ctx, primaryStatement("ex.test", "/nonexistent")); !IsNoSuchView(err) {
		t.Errorf("addzone without a view on a server with views: %v, want IsNoSuchView", err)
	}
	for _, view := range []string{"internal", "external"} {
		p, err := s.WriteViewZone(view, "ex.test", testbind.MinimalZone("ex.test", 1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.InView(view).AddZone(ctx, primaryStatement("ex.test", p)); err != nil {
			t.Fatalf("addzone in %s: %v\n%s", view, err, s.LogTail(10))
		}
	}
	for _, view := range []string{"internal", "external"} {
		st, err := c.InView(view).ZoneStatus(ctx, "ex.test")
		if err != nil || len(st.Files) != 1 || st.Files[0] != s.ViewZoneFile(view, "ex.test") {
			t.Errorf("zonestatus in %s: %+v, %v", view, st, err)
		}
		zs, err := c.InView(view).ShowZoneStatement(ctx, "ex.test")
		if err != nil || fileOfStatement(zs) != s.ViewZoneFile(view, "ex.test") {
			t.Errorf("showzone in %s: %v, %v", view, zs, err)
		}
	}
	if _, err := c.ZoneStatus(ctx, "ex.test"); !IsMultipleViews(err) {
		t.Errorf("zonestatus without a view: %v, want IsMultipleViews", err)
	}
	if _, err := c.InView("nope").Freeze(ctx, "ex.test"); !IsNoSuchView(err) {
		t.Errorf("freeze in a missing view: %v, want IsNoSuchView", err)
	}
	if _, err := c.InView("internal").DelZone(ctx, "ex.test", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InView("internal").ZoneStatus(ctx, "ex.test"); !IsNotFound(err) {
		t.Errorf("internal's zone after its delete: %v", err)
	}
	if st, err := c.ZoneStatus(ctx, "ex.test"); err != nil || st.Files[0] != s.ViewZoneFile("external", "ex.test") {
		t.Errorf("the one zone left, without a view: %+v, %v", st, err)
	}
}

// fileOfStatement returns the file clause of a statement.
func fileOfStatement(zs *ZoneStatement) string {
	if zs == nil {
		return ""
	}
	v, _ := zs.Get("file")
	s, _ := v.Text()
	return s
}

// TestViewClientCoversEveryZoneCommand: every exported method of Client
// that names a zone (a parameter `zone string` or a *ZoneStatement) has a
// ViewClient method of its own, so that no zone command reaches a view's
// zone through the embedded Client without naming the view. A new zone
// command on Client fails this test until ViewClient has it too.
func TestViewClientCoversEveryZoneCommand(t *testing.T) {
	fset := gotoken.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	zoneMethods := map[string]bool{}
	viewMethods := map[string]bool{}
	for _, f := range pkgs["rndc"].Files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			recv := types.ExprString(fn.Recv.List[0].Type)
			switch recv {
			case "*ViewClient":
				viewMethods[fn.Name.Name] = true
			case "*Client":
				for _, p := range fn.Type.Params.List {
					typ := types.ExprString(p.Type)
					for _, n := range p.Names {
						if n.Name == "zone" && typ == "string" || typ == "*ZoneStatement" {
							zoneMethods[fn.Name.Name] = true
						}
					}
				}
			}
		}
	}
	if len(zoneMethods) < 10 {
		t.Fatalf("found only %d zone methods: %v", len(zoneMethods), zoneMethods)
	}
	for m := range zoneMethods {
		if !viewMethods[m] {
			t.Errorf("Client.%s names a zone but ViewClient has no %s of its own: through the embedded Client it would not name the view", m, m)
		}
	}
}

// FuzzZoneArg: whatever the names, an accepted zone argument is "zone" or
// "zone IN view" of plain words: nothing can end the command's argument,
// add one, or open a block.
func FuzzZoneArg(f *testing.F) {
	f.Add("example.com", "internal")
	f.Add("example.com", "")
	f.Add("a.b", "in view")
	f.Add("x", "a;b{")
	f.Add("0/25.2.0.192.in-addr.arpa", "internal")
	f.Add("/", "0")
	f.Add(".", "") // the root zone
	f.Add(".", "internal")
	f.Fuzz(func(t *testing.T, zone, view string) {
		arg, err := ZoneArg(zone, view)
		if err != nil {
			return
		}
		fields := strings.Fields(arg)
		want := 1
		if view != "" {
			want = 3
		}
		// A zone name with '/' in a label (RFC 2317) goes in quotes, which
		// named's parsers take as one word: nothing else is quoted, and
		// the quoted word holds no quote, brace, semicolon or space.
		first := fields[0]
		if q, ok := strings.CutPrefix(first, `"`); ok {
			inner, closed := strings.CutSuffix(q, `"`)
			if !closed || !strings.Contains(inner, "/") || strings.ContainsAny(inner, "{};\\\"'#\n\t ") {
				t.Fatalf("ZoneArg(%q, %q) = %q: a quoted zone that is not one word with '/'", zone, view, arg)
			}
			first = strings.ReplaceAll(inner, "/", "")
		}
		rest := strings.Join(append([]string{first}, fields[1:]...), " ")
		if len(fields) != want || strings.Join(fields, " ") != arg || strings.ContainsAny(rest, "{};\\\"'#/\n\t") {
			t.Fatalf("ZoneArg(%q, %q) = %q", zone, view, arg)
		}
		if view != "" && (fields[1] != "IN" || fields[2] != view) {
			t.Fatalf("ZoneArg(%q, %q) = %q", zone, view, arg)
		}
	})
}
