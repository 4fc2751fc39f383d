package apispec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// servedSumsFile holds the sha256 of every document the service serves, as
// built by commit 7d6c08b (the tree before issue 26's redesign), one
// "<sum>  <document>" line each. It was made by copying this file into a
// worktree of that commit and running it there with ZONEAPI_WRITE_SPEC_SUMS
// set to the file's path:
//
//	git worktree add --detach /tmp/old 7d6c08b
//	cp apispec/served_test.go /tmp/old/apispec/
//	(cd /tmp/old && ZONEAPI_WRITE_SPEC_SUMS=$PWD/../<tree>/apispec/testdata/served-7d6c08b.sha256 \
//	  go test ./apispec -run TestServedDocumentsUnchanged)
//
// Rewritten since, for changes of the API that were meant: issue 29's
// dryRun of POST /zones/{name}/import (the OpenAPI documents).
//
// bf7bdd5 (issue 29: the import's dryRun parameter and its answer) rewrote
// the four OpenAPI lines; the AsyncAPI lines are still 7d6c08b's. With
// 7d6c08b's apispec/resources/import.yaml put back, the tree after it
// builds the four OpenAPI documents of the original sums (git show
// 82ae344:apispec/testdata/served-7d6c08b.sha256): issue 26 changed none.
// integration's TestDocsServed compares what a Caddy build serves with the
// same sums.
const servedSumsFile = "testdata/served-7d6c08b.sha256"

// servedDocuments are the documents GET /api/v1/{openapi,asyncapi}.{json,yaml}
// serve, by name (the OpenAPI document in each docs mode that serves it).
func servedDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, mode := range []string{DocsAuth, DocsPublic} {
		d, err := Service(mode)
		if err != nil {
			t.Fatal(err)
		}
		docs["openapi.json docs "+mode] = d.JSON()
		docs["openapi.yaml docs "+mode] = d.YAML()
	}
	a, err := ServiceAsyncAPI()
	if err != nil {
		t.Fatal(err)
	}
	docs["asyncapi.json"] = a
	docs["asyncapi.yaml"] = YAML(a)
	return docs
}

// TestServedDocumentsUnchanged checks that the OpenAPI document of each
// docs mode and the AsyncAPI document, JSON and YAML, are byte for byte
// those of 7d6c08b (issue 26: a redesign that changes no wire byte).
// A change of the API that is meant must rewrite servedSumsFile in the
// same commit (ZONEAPI_WRITE_SPEC_SUMS, above) and say why.
func TestServedDocumentsUnchanged(t *testing.T) {
	docs := servedDocuments(t)
	if out := os.Getenv("ZONEAPI_WRITE_SPEC_SUMS"); out != "" {
		var b strings.Builder
		for _, name := range sortedKeys(docs) {
			sum := sha256.Sum256(docs[name])
			fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		}
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skipf("wrote %s", out)
	}
	want := readServedSums(t, filepath.FromSlash(servedSumsFile))
	if len(want) != len(docs) {
		t.Errorf("%s lists %d documents, the service serves %d", servedSumsFile, len(want), len(docs))
	}
	for name, body := range docs {
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != want[name] {
			t.Errorf("%s: sha256 %s, 7d6c08b's was %s (%d bytes now)", name, got, want[name], len(body))
		}
	}
}

// readServedSums reads a file of "<sha256>  <document>" lines.
func readServedSums(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, line)
		}
		sums[name] = sum
	}
	return sums
}
