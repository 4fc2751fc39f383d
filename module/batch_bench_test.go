package module

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// addsBody is a PATCH body of n adds.
func addsBody(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"changes":[`)
	for i := range n {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"op":"add","name":"k%04d","type":"A","value":"192.0.2.2"}`, i)
	}
	sb.WriteString("]}")
	return sb.String()
}

// BenchmarkBatchBody measures what a 1,000-change PATCH costs before any
// DNS: the schema check and the strict decoding.
func BenchmarkBatchBody(b *testing.B) {
	h := docsHandler(b, "")
	body := addsBody(1000)
	p := routeParams(b, h, "PATCH", "/api/v1/zones/x.test/records")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req := httptest.NewRequest("PATCH", "/api/v1/zones/x.test/records", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		var r apitypes.BatchRequest
		if !h.router.Decode(w, req, p, &r) || len(r.Changes) != 1000 {
			b.Fatal(w.Body)
		}
	}
}
