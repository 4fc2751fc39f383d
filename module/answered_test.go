package module

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
)

// TestRecordChangeAnsweredBeforeItsLogLine: a record change's answer
// (add, update, remove, batch) is flushed, complete, before its line on
// zone_api::dns is written, and a zone's reload or delete before its
// line, as before their audit line: the client does not wait for either.
// Before, the handler wrote the "record added" line (and the others)
// before its answer, which left only once the handler had returned.
func TestRecordChangeAnsweredBeforeItsLogLine(t *testing.T) {
	const records = "/api/v1/zones/rec.test/records"
	for _, tc := range []struct{ method, path, body, line string }{
		{"POST", records, `{"name":"api","type":"A","value":"192.0.2.7"}`, "record added"},
		{"PUT", records, `{"name":"www","type":"A","currentValue":"192.0.2.10","newValue":"192.0.2.11"}`, "record updated"},
		{"DELETE", records, `{"name":"www","type":"A"}`, "record removed"},
		{"PATCH", records, `{"changes":[{"op":"add","name":"t","type":"TXT","value":"hello"}]}`, "record batch applied"},
		{"POST", "/api/v1/zones/frozen.test/reload", "", "zone reloaded"},
		{"DELETE", "/api/v1/zones/frozen.test?confirm=unmanaged", "", "zone deleted"},
	} {
		h, _ := fakeNamedHandler(t, fakeNamedAnswers{
			"zonestatus frozen.test": {Text: testdata(t, "zonestatus_frozen.txt")},
			"reload frozen.test":     {Text: "zone reload queued"},
			"delzone frozen.test":    {Text: "zone frozen.test scheduled for removal"},
		})
		h.conf.DNSServer = dnstest.NewServer(t, map[string]string{"rec.test": recZone}).Addr
		w := httptest.NewRecorder()
		flushed := map[string]bool{} // by line: whether the answer was flushed when it was written
		core, _ := observer.New(zapcore.InfoLevel)
		h.setLoggers(zap.New(core, zap.Hooks(func(e zapcore.Entry) error {
			if _, seen := flushed[e.Message]; !seen {
				flushed[e.Message] = w.Flushed
			}
			return nil
		})))
		h.router = h.newRouter() // its front ends take the loggers
		r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		if tc.body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		if w.Code >= 300 {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, w.Code, w.Body)
		}
		got, logged := flushed[tc.line]
		if !logged {
			t.Fatalf("%s: no %q line (lines: %v)", tc.method, tc.line, flushed)
		}
		if !got {
			t.Errorf("%s: the %q line was written before the answer was flushed", tc.method, tc.line)
		}
	}
}
