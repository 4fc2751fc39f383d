package apispec

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./apispec -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generated document; run go test ./apispec -update and review the diff", path)
	}
}

func TestFixturesGenerateGoldenDocuments(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.yaml")
	if len(files) < 3 {
		t.Fatalf("want the fixtures under testdata/valid, found %v", files)
	}
	opt := Options{Title: "fixtures", Version: "1.0.0", Servers: []string{"https://dns.example.test/api"}}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			rs, err := LoadFiles(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := OpenAPI(rs, opt) // validates with kin-openapi
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".openapi.json", d.JSON())
			a, err := AsyncAPI(rs, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkRefs(t, a)
			golden(t, name+".asyncapi.json", a)
		})
	}
	t.Run("all", func(t *testing.T) {
		rs, err := LoadFiles(files...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := OpenAPI(rs, opt)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "all.openapi.json", d.JSON())
	})
}

// checkRefs asserts that every local $ref of a JSON document resolves.
func checkRefs(t *testing.T, doc []byte) {
	t.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"].(string); ok {
				cur := root
				for _, tok := range strings.Split(strings.TrimPrefix(r, "#/"), "/") {
					m, _ := cur.(map[string]any)
					cur = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)]
				}
				if cur == nil {
					t.Errorf("dangling $ref %s", r)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(root)
}

func TestZonesKeySubstringAndVersionInPath(t *testing.T) {
	rs, err := LoadFiles("testdata/valid/zones.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenAPI(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	coll := d.T().Paths.Value("/v1/zones")
	if coll == nil || d.T().Paths.Value("/v1/zones/{zone}") == nil {
		t.Fatalf("want /v1/zones and /v1/zones/{zone}, got %v", d.Routes())
	}
	if d.T().Paths.Value("/vv1/zones") != nil {
		t.Fatal("version doubled: /vv1/zones")
	}
	for m, op := range coll.Operations() {
		for _, p := range op.Parameters {
			if p.Value.In == "path" {
				t.Errorf("%s /v1/zones has path parameter %q", m, p.Value.Name)
			}
		}
	}
	if len(coll.Parameters) != 0 {
		t.Errorf("/v1/zones has path-level parameters %v", coll.Parameters)
	}
	inst := d.T().Paths.Value("/v1/zones/{zone}")
	if len(inst.Parameters) != 1 || inst.Parameters[0].Value.Name != "zone" || inst.Parameters[0].Value.Schema.Value.Format != "hostname" {
		t.Errorf("instance path parameter: want zone (format hostname), got %+v", inst.Parameters)
	}
	// default_query_params on every GET, query_params filtered by method.
	names := func(m, path string) []string {
		var out []string
		for _, p := range d.T().Paths.Value(path).GetOperation(m).Parameters {
			out = append(out, p.Value.Name)
		}
		return out
	}
	if got := strings.Join(names("GET", "/v1/zones"), ","); got != "type,limit,offset" {
		t.Errorf("GET /v1/zones parameters = %s, want type,limit,offset", got)
	}
	if got := strings.Join(names("GET", "/v1/zones/{zone}"), ","); got != "limit,offset" {
		t.Errorf("GET /v1/zones/{zone} parameters = %s, want limit,offset", got)
	}
	if got := strings.Join(names("POST", "/v1/zones"), ","); got != "dry_run" {
		t.Errorf("POST /v1/zones parameters = %s, want dry_run", got)
	}
	// Several schemes: any one suffices (one requirement object each).
	sec := d.T().Paths.Value("/v1/zones").Post.Security
	if sec == nil || len(*sec) != 2 {
		t.Errorf("POST security = %v, want two alternatives", sec)
	}
	if d.T().Paths.Value("/v1/zones").Get.Security != nil {
		t.Error("GET /v1/zones should be public (security lists only post)")
	}
}

func TestFirestoneAliases(t *testing.T) {
	rs, err := LoadFiles("testdata/valid/firestone-dialect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenAPI(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	get := d.T().Paths.Value("/v1/views").Get
	if get == nil || len(get.Parameters) != 1 || get.Parameters[0].Value.Schema.Value.Default != float64(50) {
		t.Fatalf("versionInPath or the moved default did not apply: %s", d.JSON())
	}
	if bytes.Contains(d.JSON(), []byte("expose")) {
		t.Error("firestone's expose leaked into the document")
	}
}

func TestFormatRulesRejectWithPosition(t *testing.T) {
	const base = "kind: zones\napiVersion: v1\n"
	tests := []struct {
		name string
		src  string
		want []string // "line:col|message fragment"
	}{
		{"missing key with instance methods",
			base + "methods:\n  instance: [get]\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`5:1|missing required field "key"`}},
		{"uppercase kind",
			"kind: Zones\napiVersion: v1\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`1:1|'Zones' does not match pattern`}},
		{"spaced kind",
			"kind: dns zones\napiVersion: v1\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`1:1|'dns zones' does not match pattern`}},
		{"unknown method",
			base + "methods:\n  resource: [get, list]\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`4:19|value must be one of 'get', 'post', 'put', 'patch', 'delete' (at /methods/resource/1)`}},
		{"method at the wrong level",
			base + "methods:\n  resource: [put]\n  instance: [post]\nschema:\n  type: array\n  key: {name: zone}\n  items: {type: object}\n",
			[]string{`4:14|put is not a collection method`, `5:14|post is not an instance method`}},
		{"bad apiVersion",
			"kind: zones\napiVersion: \"1.0\"\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`2:1|value must be 'v1'`}},
		{"numeric apiVersion",
			"kind: zones\napiVersion: 1\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`2:1|got number, want string`}},
		{"non-array schema.type",
			base + "schema:\n  type: object\n  items: {type: object}\n",
			[]string{`4:3|value must be 'array'`}},
		{"unknown security type",
			base + "schema:\n  type: array\n  items: {type: object}\nsecurity:\n  scheme:\n    basic: {type: openIdConnect}\n",
			[]string{`8:13|value must be one of 'http', 'apiKey', 'oauth2'`}},
		{"unknown field",
			base + "version_in_path: true\nschema:\n  type: array\n  items: {type: object}\n",
			[]string{`3:1|unknown field "version_in_path"`}},
		{"bad JSON Schema in items",
			base + "schema:\n  type: array\n  items:\n    type: object\n    properties:\n      a: {type: strin}\n      b: {type: string, minLength: -1}\n      c: {type: string, pattern: \"(\"}\n",
			[]string{`8:11|value must be one of 'string', 'number'`, `9:25|minimum: got -1, want 0`, `10:25|'(' is not valid regex`}},
		{"required names an unknown property",
			base + "schema:\n  type: array\n  items:\n    type: object\n    required: [a, b]\n    properties:\n      a: {type: string}\n",
			[]string{`7:19|required names "b", which is not in properties`}},
		{"several errors in one file",
			"kind: Bad Kind\napiVersion: v2\nmethods:\n  resource: [fetch]\n  instance: [get]\nschema:\n  type: object\n  items: {type: object}\nextra: 1\n",
			[]string{"1:1|does not match pattern", "2:1|value must be 'v1'", "4:14|value must be one of", "6:1|missing required field \"key\"", "7:3|value must be 'array'", `9:1|unknown field "extra"`}},
		{"invalid YAML",
			"kind: zones\napiVersion: [v1\n",
			[]string{"1:1|invalid YAML: did not find expected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			list := err.(ErrorList)
			for _, w := range tt.want {
				found := false
				at, msg, _ := strings.Cut(w, "|")
				for _, e := range list {
					if strings.HasPrefix(e.Error(), "bad.yaml:"+at+": ") && strings.Contains(e.Error(), msg) {
						found = true
					}
				}
				if !found {
					t.Errorf("want an error %q, got:\n%v", w, list)
				}
			}
			if len(list) < len(tt.want) {
				t.Errorf("want %d errors, got %d:\n%v", len(tt.want), len(list), list)
			}
		})
	}
}

func TestCrossFileConflicts(t *testing.T) {
	dir := t.TempDir()
	a := "kind: zones\napiVersion: v1\nschema:\n  type: array\n  items: {type: object}\nsecurity:\n  scheme:\n    tok: {type: http, scheme: bearer}\n"
	b := "kind: zones\napiVersion: v1\nschema:\n  type: array\n  items: {type: object}\nsecurity:\n  scheme:\n    tok: {type: http, scheme: basic}\n"
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte(b), 0o644)
	_, err := LoadFiles(filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"))
	if err == nil || !strings.Contains(err.Error(), "path /zones is already defined") {
		t.Errorf("want a duplicate path error, got %v", err)
	}
}

func TestServiceDocument(t *testing.T) {
	for _, mode := range []string{DocsAuth, DocsPublic, DocsOff} {
		d, err := Service(mode)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		docs := d.T().Paths.Value("/v1/docs")
		switch mode {
		case DocsOff:
			if docs != nil {
				t.Error("docs off still lists /v1/docs")
			}
		case DocsPublic:
			if docs == nil || docs.Get.Security == nil || len(*docs.Get.Security) != 0 {
				t.Error("docs public: /v1/docs should have security []")
			}
		case DocsAuth:
			if docs == nil || docs.Get.Security == nil || len(*docs.Get.Security) != 1 {
				t.Error("docs auth: /v1/docs should need the bearer token")
			}
		}
	}
	if _, err := Service("sometimes"); err == nil {
		t.Error("unknown docs mode accepted")
	}
}

func TestValidateRequest(t *testing.T) {
	d, err := Service("")
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.example.com.","adminEmail":"hostmaster@example.com"},"nameServers":["ns1.example.com."]}}`
	if v := d.ValidateRequest("POST", "/api/v1/zones", []byte(ok)); v != nil {
		t.Errorf("valid body rejected: %v", v)
	}
	bad := `{"zoneName":"","zoneType":"bogus","zoneConfig":{"ttl":"x","soa":{"adminEmail":"a"}},"extra":1}`
	got := map[string]string{}
	for _, v := range d.ValidateRequest("POST", "/api/v1/zones", []byte(bad)) {
		got[v.Pointer] = v.Message
	}
	for _, p := range []string{"/zoneName", "/zoneType", "/zoneConfig/ttl", "/zoneConfig/soa/primaryNs", "/extra"} {
		if _, ok := got[p]; !ok {
			t.Errorf("no violation at %s; got %v", p, got)
		}
	}
	if v := d.ValidateRequest("PATCH", "/v1/zones/{name}/records", []byte(`{"changes":[{"op":"add","name":"www","type":"A","value":"192.0.2.1"}]}`)); v != nil {
		t.Errorf("valid patch rejected: %v", v)
	}
	if v := d.ValidateRequest("POST", "/api/v1/zones", []byte(`{`)); len(v) != 1 || !strings.Contains(v[0].Message, "malformed JSON") {
		t.Errorf("malformed body: %v", v)
	}
	if v := d.ValidateRequest("GET", "/api/v1/zones", nil); v != nil {
		t.Errorf("GET has no body schema, got %v", v)
	}
}
