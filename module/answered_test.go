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
// zone_api::dns is written, as before its audit line: the client does not
// wait for either. Before, the handler wrote the "record added" line
// before its answer, which left only once the handler had returned.
func TestRecordChangeAnsweredBeforeItsLogLine(t *testing.T) {
	for _, tc := range []struct{ method, body, line string }{
		{"POST", `{"name":"api","type":"A","value":"192.0.2.7"}`, "record added"},
		{"PUT", `{"name":"www","type":"A","currentValue":"192.0.2.10","newValue":"192.0.2.11"}`, "record updated"},
		{"DELETE", `{"name":"www","type":"A"}`, "record removed"},
		{"PATCH", `{"changes":[{"op":"add","name":"t","type":"TXT","value":"hello"}]}`, "record batch applied"},
	} {
		h, _ := fakeNamedHandler(t, fakeNamedAnswers{})
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
		r := httptest.NewRequest(tc.method, "/api/v1/zones/rec.test/records", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		if w.Code >= 300 {
			t.Fatalf("%s: %d %s", tc.method, w.Code, w.Body)
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
