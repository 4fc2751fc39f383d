package apispec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// officialAsyncAPISchema is the AsyncAPI 3.0.0 JSON Schema as the AsyncAPI
// Initiative publishes it (@asyncapi/specs 6.11.1, schemas/3.0.0.json,
// Apache-2.0), vendored so that the test needs no network.
const officialAsyncAPISchema = "testdata/asyncapi-3.0.0.schema.json"

// asyncAPIValidator compiles the official AsyncAPI 3.0.0 schema.
func asyncAPIValidator(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(officialAsyncAPISchema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const id = "http://asyncapi.com/definitions/3.0.0/asyncapi.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validAsyncAPI reports whether doc validates against the official
// AsyncAPI 3.0.0 schema, and why not.
func validAsyncAPI(t testing.TB, s *jsonschema.Schema, doc []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestAsyncAPIDocumentsValidateAgainstTheOfficialSchema checks every
// generated AsyncAPI document (the golden fixtures and the service's own)
// against the AsyncAPI 3.0.0 JSON Schema.
func TestAsyncAPIDocumentsValidateAgainstTheOfficialSchema(t *testing.T) {
	s := asyncAPIValidator(t)
	files, _ := filepath.Glob("testdata/golden/*.asyncapi.json")
	if len(files) == 0 {
		t.Fatal("no golden AsyncAPI documents")
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validAsyncAPI(t, s, doc); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestServiceAsyncAPIValidates checks the service's own AsyncAPI document
// against the official schema, and that the check can fail: the document
// with an AsyncAPI 2 action word is refused.
func TestServiceAsyncAPIValidates(t *testing.T) {
	s := asyncAPIValidator(t)
	doc, err := ServiceAsyncAPI()
	if err != nil {
		t.Fatal(err)
	}
	checkRefs(t, doc)
	if err := validAsyncAPI(t, s, doc); err != nil {
		t.Fatalf("the service's AsyncAPI document: %v", err)
	}
	broken := bytes.Replace(doc, []byte(`"action": "send"`), []byte(`"action": "publish"`), 1)
	if bytes.Equal(broken, doc) {
		t.Fatal("no send operation in the document")
	}
	if validAsyncAPI(t, s, broken) == nil {
		t.Error("a document with action publish (AsyncAPI 2) validated as AsyncAPI 3.0")
	}
	golden(t, "service.asyncapi.json", doc)
}
