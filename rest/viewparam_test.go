package rest

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequestView: ?view= read strictly.
func TestRequestView(t *testing.T) {
	for q, want := range map[string]string{
		"":                                "",
		"limit=5":                         "",
		"preview=x":                       "",
		"view=internal":                   "internal",
		"view=_lan-2&limit=1":             "_lan-2",
		"view=":                           "error: view is empty",
		"view=a&view=b":                   "error: view is given 2 times",
		"view=a%3Bb":                      "error: invalid view name",
		"view=" + strings.Repeat("v", 65): "error: view name too long",
	} {
		r := httptest.NewRequest("GET", "/api/v1/zones/x.test?"+q, nil)
		got, err := RequestView(r)
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(got, want) || want == "" && got != "" {
			t.Errorf("?%s: %q, want %q", q, got, want)
		}
	}
}
