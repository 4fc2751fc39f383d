package logsafe

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
)

// secretKey matches JSON keys whose values are never logged.
var secretKey = regexp.MustCompile(`(?i)(secret|password|passwd|token|private|credential|authorization)`)

// RedactJSON returns body with the values of secret-looking keys replaced
// by "[REDACTED]". A body that is not JSON is described, not echoed.
func RedactJSON(body []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "(not JSON, " + strconv.Itoa(len(body)) + " bytes)"
	}
	out, err := json.Marshal(redact(v))
	if err != nil {
		return "(unprintable JSON)"
	}
	return string(out)
}

// redact replaces the values of secret-looking keys in v, in place.
func redact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if secretKey.MatchString(k) {
				t[k] = "[REDACTED]"
			} else {
				t[k] = redact(val)
			}
		}
	case []any:
		for i := range t {
			t[i] = redact(t[i])
		}
	}
	return v
}

// LimitedWriter keeps the first n bytes written to it and drops the rest.
type LimitedWriter struct {
	W io.Writer
	N int
}

// Write keeps what fits of p and reports all of p written.
func (l *LimitedWriter) Write(p []byte) (int, error) {
	if l.N > 0 {
		k := min(len(p), l.N)
		_, _ = l.W.Write(p[:k])
		l.N -= k
	}
	return len(p), nil
}
