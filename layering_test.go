package zoneapi

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The layering rule of the module, checked by TestLayering (docs/architecture.md
// describes it; DESIGN.md's "Layout" is the picture):
//
//   - arrows point down only: a package imports project packages of the layers
//     its own layer lists in "imports", never of a layer above;
//   - nothing below the front ends imports net/http, Caddy or a front end;
//   - a front end reaches zones only through the contract (package frontend):
//     it imports the contract, apitypes, auth, zonemodel, jsonbody, the spec and
//     base helpers, nothing of the zone service or below it; it never imports
//     another front end, nor miekg/dns, nor builds BIND configuration text (no
//     string literal in its non-test files names a clause of a zone statement:
//     that text is built by rndc);
//   - the API types package depends on nothing of the server (base helpers only).
//
// Every package of the module is in exactly one layer. A new package must be
// added to the layer it belongs to; a package that is gone must be removed.
// "Below the front ends" are the layers whose http and caddy are false.
// docs/architecture.md shows the table; `go test -run TestLayering . -update`
// rewrites it there after a change here.
var layering = []layer{
	{
		name:    "base",
		rule:    "small helpers of no domain, importing no project package",
		pkgs:    []string{"internal/connpool", "internal/logfilter", "internal/logsafe", "internal/txtdata", "internal/version"},
		imports: nil,
	},
	{
		name:    "api types",
		rule:    "the API's request and response types, shared by the handler, the Go client and the Caddy DNS provider: nothing of the server",
		pkgs:    []string{"apitypes"},
		imports: []string{"base"},
		http:    true, // the route table may name HTTP methods and statuses
	},
	{
		name:    "zone model",
		rule:    "zone names, record data and their validation: pure, no I/O",
		pkgs:    []string{"zonemodel"},
		imports: []string{"base"},
		miekg:   true,
	},
	{
		name:    "storage and control",
		rule:    "zone files, locks, index and intents (zonestore); named's control channel and its zone statement model (rndc); the change history's durable log (history); BIND's zone checker, named-checkzone (zonecheck); every zone named serves, read from its statistics channel through a fetch it is given (inventory)",
		pkgs:    []string{"history", "inventory", "rndc", "zonecheck", "zonestore"},
		imports: []string{"base", "zone model", "storage and control"},
		miekg:   true,
	},
	{
		name:    "dns",
		rule:    "DNS messages to named: RFC 2136 updates, transfers, NOTIFY (dnsupdate); the RFC 9432 catalog zone (catalog)",
		pkgs:    []string{"catalog", "dnsupdate"},
		imports: []string{"base", "zone model", "storage and control", "dns"},
		miekg:   true,
	},
	{
		name:    "zone service",
		rule:    "every zone and record operation on domain types with typed errors; no HTTP, no Caddy",
		pkgs:    []string{"zoneservice"},
		imports: []string{"base", "zone model", "storage and control", "dns", "zone service"},
		miekg:   true,
	},
	{
		name:    "spec",
		rule:    "the resource-definition format and the generated OpenAPI/AsyncAPI documents",
		pkgs:    []string{"apispec"},
		imports: []string{"base", "api types"},
		http:    true,
	},
	{
		name:    "client",
		rule:    "the Go client of the API and its in-process transport to zone_api (internal/localcall): the API types, nothing of the server",
		pkgs:    []string{"client", "internal/localcall"},
		imports: []string{"base", "api types", "client"},
		http:    true,
	},
	{
		name:    "client adapters",
		rule:    "libraries and Caddy glue over the Go client, which reach zones only through the API: the libdns provider (client/libdnsprovider), the Caddy DNS provider dns.providers.zone_api (client/caddydns, in-process through internal/localcall), the `caddy zoneapi-adopt` command (client/adoptcmd)",
		pkgs:    []string{"client/adoptcmd", "client/caddydns", "client/libdnsprovider"},
		imports: []string{"base", "api types", "client", "client adapters"},
		http:    true,
		caddy:   true,
		miekg:   true,
		front:   true,
	},
	{
		name:    "front-end policy",
		rule:    "what every front end applies to a request, shared by all: auth modes, scopes, rate limits and who may name a zone's servers (auth), the one JSON body decoder (jsonbody)",
		pkgs:    []string{"auth", "jsonbody"},
		imports: []string{"base", "api types", "zone model", "front-end policy"},
		http:    true,
		caddy:   true,
		miekg:   true,
	},
	{
		name:    "front-end contract",
		rule:    "the one way a front end reaches zones (frontend: small interfaces, each with its contract in its doc comment, in zone model and API type values) and the registry of the front ends zone_api mounts",
		pkgs:    []string{"frontend"},
		imports: []string{"base", "api types", "zone model", "front-end policy"},
		http:    true,
		caddy:   true,
	},
	{
		name:    "front-end support",
		rule:    "Caddy glue below the front ends: zone_api's configuration as Caddy JSON and Caddyfile, its checks and resolution, apart from the module's lifecycle (config), the contract implemented over the zone service (frontend/adapter), keys as configured, the shared DNS updaters, zone_api's metrics (internal/apimetrics) and its request and client logs (internal/reqlog), the spec command, the optional Kubernetes TokenReview auth mode",
		pkgs:    []string{"apispec/speccmd", "auth/k8stokenreview", "config", "frontend/adapter", "internal/apimetrics", "internal/keyconf", "internal/reqlog", "internal/sharedhistory", "internal/statschannel", "internal/sharedupdater"},
		imports: []string{"base", "api types", "zone model", "storage and control", "dns", "zone service", "spec", "front-end policy", "front-end contract", "front-end support"},
		http:    true,
		caddy:   true,
		miekg:   true,
	},
	{
		name:    "front ends",
		rule:    "HTTP glue over the front-end contract: translate, authorise, map errors; no zone logic, no other front end, nothing of the service or below it (the REST API, the PowerDNS API, the external-dns webhook's HTTP side and its provider (external-dns's endpoints to and from RRsets, over the contract's records and conditional apply, as external-dns keeps its provider apart from its HTTP server), the change feed's endpoints, the console)",
		pkgs:    []string{"console", "events", "externaldns/provider", "externaldns/webhook", "powerdns", "rest"},
		imports: []string{"base", "api types", "zone model", "spec", "front-end policy", "front-end contract"},
		http:    true,
		caddy:   true,
		front:   true,
	},
	{
		name:    "request path",
		rule:    "what zone_api does with every request before and after the front end it mounts serves it (internal/apirouter: the route table over the front ends' routes, authentication, scopes, audit line, the operation metric); no zone logic, no front end's protocol",
		pkgs:    []string{"internal/apirouter"},
		imports: []string{"base", "api types", "zone model", "spec", "front-end policy", "front-end contract", "front-end support", "front ends"},
		http:    true,
		front:   true,
	},
	{
		name:    "caddy glue",
		rule:    "the Caddy modules: zone_api (module: registration, provisioning, the Caddyfile, the front ends it mounts (the REST API of package rest, the PowerDNS API) over the request path of internal/apirouter, its logs and metrics) and zone_api_external_dns (externaldns: its configuration, the shared DNS updater and the history, wiring the webhook's HTTP side onto its provider); no zone logic",
		pkgs:    []string{"externaldns", "module"},
		imports: []string{"base", "api types", "zone model", "storage and control", "dns", "zone service", "spec", "client", "client adapters", "front-end policy", "front-end contract", "front-end support", "front ends", "request path"},
		http:    true,
		caddy:   true,
		front:   true,
	},
	{
		name:    "root",
		rule:    "the module's root package: registers the front ends with Caddy",
		pkgs:    []string{""},
		imports: []string{"caddy glue", "front ends", "front-end support", "client adapters"},
		caddy:   true,
	},
	{
		name:    "test support",
		rule:    "packages for tests only (zoneapitest/: a real named, the Caddy build, what the spec drift tests share; a fake named, adapt fixtures, end-to-end tests); no other layer imports them",
		pkgs:    []string{"caddyfile", "integration", "zoneapitest/latewatch", "zoneapitest/specdrift", "zoneapitest/testbind", "zoneapitest/testcaddy", "rndc/rndctest", "dnsupdate/dnstest"},
		imports: []string{"base", "api types", "zone model", "storage and control", "dns", "zone service", "spec", "client", "client adapters", "front-end policy", "front-end contract", "front-end support", "front ends", "request path", "caddy glue", "test support"},
		http:    true,
		caddy:   true,
		miekg:   true,
	},
}

// layeringExceptions are the edges that break the rule today, each with the
// change that removes it. An exception that no longer occurs fails the test:
// remove it then.
var layeringExceptions = map[[2]string]string{}

// layer is one row of the layering rule.
type layer struct {
	name    string
	rule    string
	pkgs    []string // paths relative to the module root; "" is the root
	imports []string // the layers its packages may import
	http    bool     // may import net/http
	caddy   bool     // may import Caddy (github.com/caddyserver/...)
	miekg   bool     // may import github.com/miekg/dns
	front   bool     // a front end: no BIND configuration text
}

const modPath = "github.com/zoneapi/caddy-zoneapi"

// TestLayering checks every package of the module against the layering
// rule above, from `go list`'s import graph (non-test files).
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \",\"}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string]pkgInfo{}
	var project []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		p := pkgInfo{dir: f[1]}
		rest := f[2:]
		if len(rest) > 0 && strings.HasSuffix(rest[0], ".go") || len(rest) > 0 && strings.Contains(rest[0], ".go,") {
			p.files = strings.Split(rest[0], ",")
			rest = rest[1:]
		}
		p.imports = rest
		graph[f[0]] = p
		if f[0] == modPath || strings.HasPrefix(f[0], modPath+"/") {
			project = append(project, f[0])
		}
	}
	// go list -deps leaves out test-only packages (no non-test files).
	all, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(all)) {
		if !slices.Contains(project, p) {
			project = append(project, p)
		}
	}
	sort.Strings(project)
	if len(project) < 20 {
		t.Fatalf("go list found only %d packages of the module: %v", len(project), project)
	}

	for _, p := range layeringProblems(graph, project, layeringExceptions, func(p pkgInfo) []string {
		return bindConfigLiterals(t, p.dir, p.files)
	}) {
		t.Error(p)
	}
	checkLayeringDoc(t)
}

// TestLayeringCatchesBrokenRules runs the check over a made-up import
// graph of the module's own packages with one breach of each rule, so that
// the rule keeps failing on the edges it forbids even when no package of
// the tree breaks it (as client/caddydns → module did before 8aa6e93, and
// powerdns → zoneservice before the front ends went over the contract).
func TestLayeringCatchesBrokenRules(t *testing.T) {
	graph := map[string]pkgInfo{}
	var project []string
	for _, l := range layering {
		for _, p := range l.pkgs {
			full := modPath
			if p != "" {
				full += "/" + p
			}
			graph[full] = pkgInfo{}
			project = append(project, full)
		}
	}
	add := func(pkg string, imports ...string) {
		full := modPath + "/" + pkg
		p := graph[full]
		for _, d := range imports {
			if !strings.Contains(d, ".") && d != "net/http" {
				d = modPath + "/" + d // a package of the module
			}
			p.imports = append(p.imports, d)
		}
		graph[full] = p
	}
	add("console", "powerdns")                    // a front end imports another
	add("powerdns", "zoneservice")                // a front end around the contract
	add("frontend", "zoneservice")                // the contract in the service's terms
	add("zonestore", "zoneservice")               // an arrow up
	add("apitypes", "zonemodel")                  // the API types depend on the server
	add("zonemodel", "net/http")                  // HTTP below the front ends
	add("zoneservice", "github.com/example/glue") // Caddy below the front ends, through another module
	graph["github.com/example/glue"] = pkgInfo{imports: []string{"github.com/caddyserver/caddy/v2"}}
	add("externaldns/webhook", "github.com/miekg/dns") // the DNS wire in a front end
	project = append(project, modPath+"/newpkg")       // a package in no layer
	graph[modPath+"/newpkg"] = pkgInfo{}
	exceptions := map[[2]string]string{{"powerdns", "github.com/miekg/dns"}: "an old TODO"}
	bindText := func(p pkgInfo) []string {
		if slices.Contains(p.files, "statement.go") {
			return []string{`statement.go:1: "also-notify"`}
		}
		return nil
	}
	graph[modPath+"/module"] = pkgInfo{files: []string{"statement.go"}}

	got := layeringProblems(graph, project, exceptions, bindText)
	want := []string{
		`package "console" (front ends) imports "powerdns" (front ends)`,
		`package "powerdns" (front ends) imports "zoneservice" (zone service)`,
		`package "frontend" (front-end contract) imports "zoneservice" (zone service)`,
		`package "zonestore" (storage and control) imports "zoneservice" (zone service)`,
		`package "apitypes" (api types) imports "zonemodel" (zone model)`,
		`package "zonemodel" (zone model) imports net/http`,
		`package "zoneservice" (zone service) depends on Caddy through github.com/example/glue`,
		`package "externaldns/webhook" (front ends) imports github.com/miekg/dns`,
		`package "newpkg" is in no layer: add it to the layer it belongs to`,
		`package "module" (a front end) builds BIND configuration text`,
		`the exception powerdns → github.com/miekg/dns (an old TODO) no longer occurs`,
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no problem reported like %q", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems reported, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

// pkgInfo is a package as go list reports it: its directory, non-test
// files and imports.
type pkgInfo struct {
	dir     string
	files   []string
	imports []string
}

// layeringProblems checks the packages of project (import paths) against
// the layering table, with graph holding every package they depend on and
// bindText finding BIND configuration text in a front end's files; it
// returns one message per breach of the rule, per package in no layer or
// listed but gone, and per exception that no longer occurs.
func layeringProblems(graph map[string]pkgInfo, project []string, exceptions map[[2]string]string, bindText func(pkgInfo) []string) (problems []string) {
	layerOf := map[string]*layer{}
	byName := map[string]*layer{}
	for i := range layering {
		l := &layering[i]
		byName[l.name] = l
		for _, p := range l.pkgs {
			if prev, dup := layerOf[p]; dup {
				problems = append(problems, fmt.Sprintf("package %q is in two layers, %q and %q", p, prev.name, l.name))
			}
			layerOf[p] = l
		}
	}
	for _, l := range layering {
		for _, n := range l.imports {
			if byName[n] == nil {
				problems = append(problems, fmt.Sprintf("layer %q may import layer %q, which does not exist", l.name, n))
			}
		}
	}
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, modPath), "/") }

	// reachesCaddy reports whether a package depends on Caddy, through
	// other modules too.
	memo := map[string]bool{}
	var reachesCaddy func(p string) bool
	reachesCaddy = func(p string) bool {
		if v, ok := memo[p]; ok {
			return v
		}
		memo[p] = false
		v := strings.HasPrefix(p, "github.com/caddyserver/")
		for _, d := range graph[p].imports {
			if v {
				break
			}
			if d == modPath || strings.HasPrefix(d, modPath+"/") {
				continue // project packages are checked on their own
			}
			v = reachesCaddy(d)
		}
		memo[p] = v
		return v
	}

	used := map[[2]string]bool{}
	violation := func(pkg, dep, msg string) {
		key := [2]string{pkg, dep}
		if _, ok := exceptions[key]; ok {
			used[key] = true
			return
		}
		problems = append(problems, msg)
	}
	seen := map[string]bool{}
	for _, full := range project {
		pkg := rel(full)
		seen[pkg] = true
		l := layerOf[pkg]
		if l == nil {
			problems = append(problems, fmt.Sprintf("package %q is in no layer: add it to the layer it belongs to in the layering table of layering_test.go, then run go test -run TestLayering . -update to show it in docs/architecture.md", pkg))
			continue
		}
		info := graph[full]
		for _, dep := range info.imports {
			switch {
			case dep == modPath || strings.HasPrefix(dep, modPath+"/"):
				d := rel(dep)
				dl := layerOf[d]
				if dl == nil {
					continue // reported as a package in no layer
				}
				if !slices.Contains(l.imports, dl.name) {
					violation(pkg, d, "package "+q(pkg)+" ("+l.name+") imports "+q(d)+" ("+dl.name+"): layer "+q(l.name)+" may import only "+strings.Join(l.imports, ", "))
				}
			case dep == "net/http" && !l.http:
				violation(pkg, dep, "package "+q(pkg)+" ("+l.name+") imports net/http: nothing below the front ends speaks HTTP")
			case strings.HasPrefix(dep, "github.com/miekg/dns") && !l.miekg:
				violation(pkg, "github.com/miekg/dns", "package "+q(pkg)+" ("+l.name+") imports "+dep+": the DNS wire belongs below the zone service")
			case !l.caddy && reachesCaddy(dep):
				violation(pkg, dep, "package "+q(pkg)+" ("+l.name+") depends on Caddy through "+dep+": nothing below the front ends knows Caddy")
			}
		}
		if l.front {
			for _, lit := range bindText(info) {
				violation(pkg, "BIND configuration text", "package "+q(pkg)+" (a front end) builds BIND configuration text: "+lit+"; zone statements are built by rndc")
			}
		}
	}
	for _, l := range layering {
		for _, p := range l.pkgs {
			if !seen[p] {
				problems = append(problems, fmt.Sprintf("layer %q lists package %q, which does not exist: remove it from the layering table of layering_test.go", l.name, p))
			}
		}
	}
	for key, why := range exceptions {
		if !used[key] {
			problems = append(problems, fmt.Sprintf("the exception %s → %s (%s) no longer occurs: remove it from exceptions", key[0], key[1], why))
		}
	}
	return problems
}

// layeringDoc is the page that shows the layering table, between these
// markers.
const (
	layeringDoc      = "docs/architecture.md"
	layeringDocStart = "<!-- layering table: written by `go test -run TestLayering . -update` from layering_test.go -->\n"
	layeringDocEnd   = "<!-- end of layering table -->\n"
)

var updateDocs = flag.Bool("update", false, "rewrite the layering table in "+layeringDoc)

// checkLayeringDoc keeps the table in docs/architecture.md equal to the
// rule above (-update rewrites it).
func checkLayeringDoc(t *testing.T) {
	b, err := os.ReadFile(layeringDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, layeringDocStart), strings.Index(doc, layeringDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no layering table markers (%q … %q)", layeringDoc, layeringDocStart, layeringDocEnd)
	}
	want := doc[:i+len(layeringDocStart)] + layeringTable() + doc[j:]
	if want == doc {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(layeringDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the layering table in %s differs from layering_test.go: run go test -run TestLayering . -update", layeringDoc)
}

// layeringTable renders the rule and its exceptions as Markdown.
func layeringTable() string {
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	var b strings.Builder
	b.WriteString("| layer | packages | may import layers | net/http | Caddy | miekg/dns |\n|---|---|---|---|---|---|\n")
	for _, l := range layering {
		var pkgs []string
		for _, p := range l.pkgs {
			if p == "" {
				p = "(the root package)"
			} else {
				p = "`" + p + "`"
			}
			pkgs = append(pkgs, p)
		}
		if len(pkgs) == 0 {
			pkgs = []string{"(none yet)"}
		}
		imports := strings.Join(l.imports, ", ")
		if imports == "" {
			imports = "none"
		}
		fmt.Fprintf(&b, "| **%s**: %s | %s | %s | %s | %s | %s |\n", l.name, l.rule, strings.Join(pkgs, ", "), imports, yes(l.http), yes(l.caddy), yes(l.miekg))
	}
	var exc []string
	for key, why := range layeringExceptions {
		dep := key[1]
		if !strings.Contains(dep, " ") {
			dep = "`" + dep + "`"
		}
		exc = append(exc, fmt.Sprintf("- `%s` → %s (%s)\n", key[0], dep, why))
	}
	sort.Strings(exc)
	if len(exc) == 0 {
		b.WriteString("\nNo exceptions: every package keeps the rule.\n")
	} else {
		b.WriteString("\nExceptions today, each removed by the change it names:\n\n" + strings.Join(exc, ""))
	}
	return b.String()
}

// bindClause matches text that starts a BIND zone statement or one of its
// clauses (a message that names a clause in a sentence does not).
var bindClause = regexp.MustCompile(`^\s*(zone\s+"|also-notify|allow-transfer|allow-update|allow-query|update-policy|dnssec-policy|inline-signing|key-directory|masterfile-format|notify-delay|serial-update-method)([^a-z-]|$)`)

// bindConfigLiterals returns, as "file:line: text", the string literals of
// the given files (struct tags and import paths aside) that start a BIND
// zone statement or one of its clauses.
func bindConfigLiterals(t *testing.T, dir string, files []string) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		tags := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if n.Tag != nil {
					tags[n.Tag] = true
				}
			case *ast.ImportSpec:
				tags[n.Path] = true
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || tags[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && bindClause.MatchString(s) {
				pos := fset.Position(lit.Pos())
				found = append(found, filepath.Base(pos.Filename)+":"+strconv.Itoa(pos.Line)+": "+lit.Value)
			}
			return true
		})
	}
	return found
}

func q(s string) string {
	if s == "" {
		return `"" (the root)`
	}
	return strconv.Quote(s)
}

// contains reports whether list holds s (purity_test.go uses it).
func contains(list []string, s string) bool { return slices.Contains(list, s) }
