package logsafe

import (
	"strings"
	"testing"
)

func TestRedactJSON(t *testing.T) {
	in := `{"zoneName":"a.test","tsig":{"secret":"c2VjcmV0"},"list":[{"Token":"x","ok":1}],"n":12345678901234567890}`
	got := RedactJSON([]byte(in))
	for _, bad := range []string{"c2VjcmV0", `"x"`} {
		if strings.Contains(got, bad) {
			t.Errorf("redacted body %s still contains %s", got, bad)
		}
	}
	for _, good := range []string{`"zoneName":"a.test"`, `"ok":1`, "12345678901234567890", "[REDACTED]"} {
		if !strings.Contains(got, good) {
			t.Errorf("redacted body %s lacks %s", got, good)
		}
	}
	if got := RedactJSON([]byte("not json secret=x")); strings.Contains(got, "secret=x") {
		t.Errorf("non-JSON body echoed: %s", got)
	}
}
