package apispec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// requestBodies lists "METHOD template" of every operation of the service
// document that has a JSON request body.
func requestBodies(t testing.TB, d *Document) []string {
	t.Helper()
	var out []string
	for path, item := range d.T().Paths.Map() {
		for method := range item.Operations() {
			if d.HasRequestBody(method, path) {
				out = append(out, method+" "+path)
			}
		}
	}
	if len(out) < 6 {
		t.Fatalf("%d request bodies in the service document, want at least 6", len(out))
	}
	return out
}

// TestQuickCompilesServiceBodies: every request body of the service
// document compiles to a quick check, so none silently loses the fast
// path.
func TestQuickCompilesServiceBodies(t *testing.T) {
	d, err := Service(DocsAuth)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range requestBodies(t, d) {
		method, path, _ := strings.Cut(op, " ")
		bc, err := d.bodyCheck(method, path)
		if err != nil || bc.schema == nil || bc.quick == nil {
			t.Errorf("%s: schema %v, quick %v, err %v", op, bc.schema != nil, bc.quick != nil, err)
		}
	}
}

// TestQuickUnsupportedKeyword: a schema with a keyword quick lacks gets
// no quick check (the library checks every body).
func TestQuickUnsupportedKeyword(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`))
	if err := c.AddResource("https://x.invalid/s.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://x.invalid/s.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := compileQuick(s); ok {
		t.Fatal("oneOf compiled to a quick check")
	}
}

// FuzzQuickMatchesLibrary: for every request body of the service document,
// a body the quick check calls valid is valid for the library; and the
// bodies of the seeds that the library accepts, quick accepts too (so the
// fast path is taken where it matters).
func FuzzQuickMatchesLibrary(f *testing.F) {
	for _, s := range []string{
		`{"changes":[{"op":"add","name":"k0000","type":"A","value":"192.0.2.2"},{"op":"replace","name":"x","type":"TXT","values":["a","b"],"ttl":60}]}`,
		`{"changes":[{"op":"add","name":"k","type":"A","value":"1","ttl":1.0}]}`,
		`{"changes":[{"op":"nope","name":"k","type":"A"}]}`,
		`{"changes":[]}`,
		`{"name":"www","type":"A","value":"192.0.2.1","ttl":60}`,
		`{"name":"mx","type":"MX","value":"mail.","priority":10}`,
		`{"name":"www","type":"A","value":"192.0.2.1","ttl":-1}`,
		`{"name":"www","type":"A","value":"192.0.2.1","ttl":2147483648}`,
		`{"name":"","type":"A","value":"x"}`,
		`{"name":"www","type":"A","currentValue":"1","newValue":"2"}`,
		`{"name":"www","type":"A"}`,
		`{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.example.com.","adminEmail":"h@example.com","serial":1},"nameServers":["ns1.example.com."],"nameServerIps":{"ns1.example.com.":"192.0.2.53"},"records":[{"name":"@","type":"A","value":"192.0.2.1"}]}}`,
		`{"zoneName":"example.com","zoneType":"bogus"}`,
		`{"alsoNotify":["192.0.2.1"],"dnssecPolicy":"default","inlineSigning":true}`,
		`{"allowTransfer":null}`, `null`, `[]`, `1`, `"x"`, `{}`, `{"extra":true}`,
	} {
		f.Add(s)
	}
	d, err := Service(DocsAuth)
	if err != nil {
		f.Fatal(err)
	}
	ops := requestBodies(f, d)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(s)))
		if err != nil {
			return
		}
		for _, op := range ops {
			method, path, _ := strings.Cut(op, " ")
			bc, err := d.bodyCheck(method, path)
			if err != nil || bc.quick == nil {
				continue
			}
			if bc.quick.valid(v) && bc.schema.Validate(v) != nil {
				t.Fatalf("%s: quick accepts %s, the library refuses it: %v", op, s, bc.schema.Validate(v))
			}
		}
	})
}

// TestQuickTakesFastPath: the usual bodies are valid for the quick check
// itself, not only after the library's second look.
func TestQuickTakesFastPath(t *testing.T) {
	d, err := Service(DocsAuth)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path, body string }{
		{"PATCH", "/api/v1/zones/{name}/records", `{"changes":[{"op":"add","name":"k0000","type":"A","value":"192.0.2.2","ttl":60,"priority":1},{"op":"replace","name":"x","type":"TXT","values":["a"]}]}`},
		{"POST", "/api/v1/zones/{name}/records", `{"name":"www","type":"A","value":"192.0.2.1","ttl":60}`},
		{"DELETE", "/api/v1/zones/{name}/records", `{"name":"www","type":"A","value":"192.0.2.1"}`},
		{"PUT", "/api/v1/zones/{name}/records", `{"name":"www","type":"A","currentValue":"1","newValue":"2"}`},
		{"POST", "/api/v1/zones", `{"zoneName":"example.com","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.example.com.","adminEmail":"h@example.com"},"nameServers":["ns1.example.com."]}}`},
		{"PATCH", "/api/v1/zones/{name}", `{"alsoNotify":["192.0.2.1"]}`},
	} {
		bc, err := d.bodyCheck(c.method, c.path)
		if err != nil || bc.quick == nil {
			t.Fatalf("%s %s: no quick check (%v)", c.method, c.path, err)
		}
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(c.body))
		if err := bc.schema.Validate(v); err != nil {
			t.Fatalf("%s %s: the library refuses %s: %v", c.method, c.path, c.body, err)
		}
		if !bc.quick.valid(v) {
			t.Errorf("%s %s: quick refuses %s", c.method, c.path, c.body)
		}
	}
}
