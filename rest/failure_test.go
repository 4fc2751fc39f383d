package rest

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// TestFailuresAnsweredOnce: outside errors.go (WriteFailure, Failure.Write)
// and httpjson.go (the writers themselves), no code of the package writes
// an error body: a handler returns its failure and serve answers it, so
// the REST API's errors have one mapping to answers (issue 26). It looks
// for calls of WriteError, and of WriteJSON with a status of 400 or more
// named by an http.Status constant.
func TestFailuresAnsweredOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "errors.go" || f == "httpjson.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case id.Name == "WriteError":
				t.Errorf("%s: WriteError: return the failure (fail(...)) for serve to answer", fset.Position(call.Pos()))
			case id.Name == "WriteJSON" && len(call.Args) > 1:
				if sel, ok := call.Args[1].(*ast.SelectorExpr); ok && errorStatus(sel.Sel.Name) {
					t.Errorf("%s: WriteJSON with %s: return the failure (an *answer) for serve to answer", fset.Position(call.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// errorStatus reports whether an http.Status constant names a status of
// 400 or more.
func errorStatus(name string) bool {
	for code := 400; code < 600; code++ {
		if text := http.StatusText(code); text != "" && "Status"+strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(text, " ", ""), "-", ""), "'", "") == name {
			return true
		}
	}
	return strings.HasPrefix(name, "StatusBad") || strings.HasPrefix(name, "StatusInternal")
}

// TestWriteFailure: the one mapping writes a Failure with its status,
// reason phrase and headers, an answer with its own body, nothing for a
// request a host hook answered, and 500 for any other error.
func TestWriteFailure(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		body   string
		header string
	}{
		{"failure", fail(http.StatusNotFound, "zone %s not found", "a.test"), 404, `{"error":"Not Found","message":"zone a.test not found"}`, ""},
		{"bad gateway", badGateway("rndc %s failed", "reload"), 500, `{"error":"Bad Gateway","message":"rndc reload failed"}`, ""},
		{"retry after", Failure{Status: 503, Message: "busy", RetryAfter: 5}, 503, `{"error":"Service Unavailable","message":"busy"}`, "5"},
		{"service error", LifecycleFailure("a.test", &zoneservice.Error{Kind: zoneservice.ErrNotFound, Zone: "a.test"}), 404, `{"error":"Not Found","message":"zone a.test not found"}`, ""},
		{"answer", &answer{http.StatusConflict, conflictBody{Error: "Conflict", Message: "exists", SameConfig: true}}, 409, `{"error":"Conflict","message":"exists","sameConfig":true}`, ""},
		{"wrapped", errors.Join(errors.New("context"), fail(http.StatusBadRequest, "bad")), 400, `{"error":"Bad Request","message":"bad"}`, ""},
		{"other", errors.New("boom"), 500, `{"error":"Internal Server Error","message":"boom"}`, ""},
	}
	for _, tc := range cases {
		w := httptest.NewRecorder()
		WriteFailure(w, tc.err)
		if w.Code != tc.status || strings.TrimSpace(w.Body.String()) != tc.body || w.Header().Get("Retry-After") != tc.header {
			t.Errorf("%s: %d %s (Retry-After %q), want %d %s (%q)", tc.name, w.Code, w.Body, w.Header().Get("Retry-After"), tc.status, tc.body, tc.header)
		}
	}
	w := httptest.NewRecorder()
	WriteFailure(w, errAnswered)
	if w.Body.Len() != 0 || len(w.Header()) != 0 {
		t.Errorf("errAnswered wrote %d %q", w.Code, w.Body)
	}
}
