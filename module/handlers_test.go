package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/rndc/rndctest"
)

// fakeNamedAnswers are the fake named's answers, by command: the whole
// command text first, then its first two words (verb and zone), then its
// verb; anything else is BIND's "not found".
type fakeNamedAnswers map[string]rndc.Response

func (a fakeNamedAnswers) answer(command string) rndc.Response {
	if r, ok := a[command]; ok {
		return r
	}
	f := strings.Fields(command)
	if len(f) > 2 {
		if r, ok := a[f[0]+" "+f[1]]; ok {
			return r
		}
	}
	if r, ok := a[f[0]]; ok {
		return r
	}
	return rndc.Response{Result: rndc.ResultNotFound, Err: "not found", Text: "no matching zone in any view"}
}

func testdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "rndc", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeNamedHandler is a handler whose control channel is a fake named
// (rndctest) answering with answers; its DNS port is closed.
func fakeNamedHandler(t testing.TB, answers fakeNamedAnswers) (*Handler, *rndctest.Server) {
	t.Helper()
	srv := rndctest.NewServer(t, answers.answer)
	h := &Handler{
		conf: config.Settings{
			ZoneDir:     t.TempDir(),
			RNDCServer:  srv.Addr,
			DNSServer:   "127.0.0.1:1",
			RNDCKey:     config.KeyConfig{Name: srv.Key.Name, Algorithm: string(srv.Key.Algorithm), Secret: srv.Key.SecretBase64()},
			RNDCTimeout: config.DefaultRNDCTimeout,
			UpdateKey: &config.KeyConfig{Name: "zoneapi-update", Algorithm: "hmac-sha256",
				Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"},
		},
		authDisabled: true,
		cell:         new(backendCell),
	}
	h.setLoggers(zap.NewNop())
	h.router = h.newRouter()
	t.Cleanup(func() { _ = h.Cleanup() })
	return h, srv
}

// TestHandlersAgainstFakeNamed runs the handlers through ServeHTTP
// against a fake named: each answers what the control channel said, with
// the status the error mapping gives it.
func TestHandlersAgainstFakeNamed(t *testing.T) {
	answers := fakeNamedAnswers{
		"status":                 {Text: testdata(t, "status.txt")},
		"zonestatus dyn.test":    {Text: testdata(t, "zonestatus_dynamic.txt")},
		"zonestatus frozen.test": {Text: testdata(t, "zonestatus_frozen.txt")},
		"showzone dyn.test":      {Text: testdata(t, "showzone_primary.txt")},
		"freeze dyn.test":        {Text: ""},
		"freeze frozen.test":     {Result: 1, Err: "already frozen"},
		"reload dyn.test":        {Result: 1, Err: "dynamic zone"},
		"zonestatus thawed.test": {Text: testdata(t, "zonestatus_dynamic.txt")},
		"thaw thawed.test":       {Text: "The zone reload and thaw was successful."},
		"freeze broken.test":     {Result: 25, Err: "failure", Text: "something broke"},
		"retransfer dyn.test":    {Result: 1, Err: "failure", Text: "retransfer: inappropriate zone type"},
		"showzone p.test":        {Text: testdata(t, "showzone_primary.txt")},
		"showzone bad.test":      {Text: strings.ReplaceAll(testdata(t, "showzone_primary.txt"), "p.test", "bad.test")},
		"modzone p.test":         {Text: ""},
		"modzone bad.test":       {Result: 1, Err: "failure", Text: "bad zone configuration"},
		"addzone":                {Text: ""},
		"addzone taken.test":     {Result: rndc.ResultExists, Err: "already exists"},
		"delzone frozen.test":    {Text: "zone frozen.test scheduled for removal"},
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"server status", "GET", "/api/v1/server/status", "", 200, `"serverUp":true`},
		{"ready", "GET", "/api/v1/ready", "", 200, `"ready":true`},
		{"list zones", "GET", "/api/v1/zones?limit=10", "", 200, `"zones":[]`},
		{"list zones bad type", "GET", "/api/v1/zones?type=tertiary", "", 400, "type must be primary or secondary"},
		{"reconcile", "POST", "/api/v1/server/reconcile", "", 200, "nothing to repair"},
		{"get zone", "GET", "/api/v1/zones/dyn.test", "", 200, `"state":"active"`},
		{"get frozen zone", "GET", "/api/v1/zones/frozen.test", "", 200, `"state":"frozen"`},
		{"get unknown zone", "GET", "/api/v1/zones/missing.test", "", 404, "zone missing.test not found"},
		{"zone status", "GET", "/api/v1/zones/dyn.test/status", "", 200, "dynamic: yes"},
		{"invalid zone name", "GET", "/api/v1/zones/bad..name", "", 400, "invalid zone name"},
		{"freeze", "POST", "/api/v1/zones/dyn.test/freeze", "", 200, "frozen successfully"},
		{"freeze a frozen zone", "POST", "/api/v1/zones/frozen.test/freeze", "", 409, "already frozen"},
		{"reload a dynamic zone", "POST", "/api/v1/zones/dyn.test/reload", "", 409, "freeze it before reloading"},
		{"thaw", "POST", "/api/v1/zones/thawed.test/thaw", "", 200, "thawed successfully"},
		{"thaw an unknown zone", "POST", "/api/v1/zones/missing.test/thaw", "", 404, "not found"},
		{"freeze fails", "POST", "/api/v1/zones/broken.test/freeze", "", 500, "rndc freeze failed: failure: something broke"},
		{"retransfer of a primary", "POST", "/api/v1/zones/dyn.test/retransfer", "", 409, "only secondary zones"},
		{"method not allowed", "PUT", "/api/v1/zones", "", 405, "allowed: POST, GET"},
		{"no such endpoint", "GET", "/api/v1/nothing", "", 404, "no such endpoint"},
		{"create", "POST", "/api/v1/zones", zoneJSON("new.test"), 201, "created successfully"},
		{"create taken by named", "POST", "/api/v1/zones", zoneJSON("taken.test"), 409, "taken.test"},
		{"create invalid", "POST", "/api/v1/zones", `{"zoneName":"x.test","zoneType":"primary"}`, 400, "zoneConfig"},
		{"delete unknown", "DELETE", "/api/v1/zones/missing.test", "", 404, "missing.test"},
		{"delete unmanaged unconfirmed", "DELETE", "/api/v1/zones/frozen.test", "", 409, "confirm=unmanaged"},
		{"delete unmanaged bad confirm", "DELETE", "/api/v1/zones/frozen.test?confirm=yes", "", 400, "confirm must be unmanaged"},
		{"delete unmanaged", "DELETE", "/api/v1/zones/frozen.test?confirm=unmanaged", "", 200, "deleted successfully"},
		{"modify", "PATCH", "/api/v1/zones/p.test", `{"alsoNotify":["192.0.2.9"]}`, 200, "p.test"},
		{"modify refused", "PATCH", "/api/v1/zones/bad.test", `{"alsoNotify":["192.0.2.9"]}`, 409, "named refused the change"},
		{"modify invalid", "PATCH", "/api/v1/zones/p.test", `{"alsoNotify":["not an address"]}`, 400, "invalid change"},
		{"modify unknown zone", "PATCH", "/api/v1/zones/missing.test", `{"alsoNotify":["192.0.2.9"]}`, 404, "missing.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fakeNamedHandler(t, answers)
			w := serveFake(h, tc.method, tc.path, tc.body)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.contains) {
				t.Fatalf("%s %s: %d %s; want %d containing %q", tc.method, tc.path, w.Code, w.Body, tc.status, tc.contains)
			}
			if w.Code >= 400 {
				var eb apitypes.Error
				if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || eb.Error == "" || eb.Message == "" {
					t.Errorf("error body %s is not {error, message}", w.Body)
				}
			}
		})
	}
}

// TestNotReady: named not answering status makes ready 503 with the
// check that failed.
func TestNotReady(t *testing.T) {
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{"status": {Result: 25, Err: "failure"}})
	w := serveFake(h, "GET", "/api/v1/ready", "")
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"ready":false`) || !strings.Contains(w.Body.String(), "rndc_error") {
		t.Fatalf("ready: %d %s", w.Code, w.Body)
	}
}

// TestCreateLeavesNoFileWhenNamedRefuses: a create that addzone refuses
// leaves no zone file behind, and a successful one leaves exactly one.
func TestCreateLeavesNoFileWhenNamedRefuses(t *testing.T) {
	h, srv := fakeNamedHandler(t, fakeNamedAnswers{"addzone": {}, "addzone taken.test": {Result: rndc.ResultExists, Err: "already exists"}})
	if w := serveFake(h, "POST", "/api/v1/zones", zoneJSON("taken.test")); w.Code != 409 {
		t.Fatalf("create taken: %d %s", w.Code, w.Body)
	}
	if w := serveFake(h, "POST", "/api/v1/zones", zoneJSON("ok.test")); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	var zoneFiles []string
	ents, _ := os.ReadDir(h.conf.ZoneDir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".zone") {
			zoneFiles = append(zoneFiles, e.Name())
		}
	}
	if strings.Join(zoneFiles, ",") != "ok.test.zone" {
		t.Errorf("zone files %v, want only ok.test.zone", zoneFiles)
	}
	var adds int
	for _, c := range srv.Commands() {
		if strings.HasPrefix(c, "addzone ") {
			adds++
		}
	}
	if adds != 2 {
		t.Errorf("%d addzone commands, want 2: %v", adds, srv.Commands())
	}
}

func zoneJSON(zone string) string {
	return `{"zoneName":"` + zone + `","zoneType":"primary","zoneConfig":{"ttl":3600,` +
		`"soa":{"primaryNs":"ns1.` + zone + `.","adminEmail":"admin@` + zone + `"},` +
		`"nameServers":["ns1.` + zone + `."],"nameServerIps":{"ns1.` + zone + `.":"192.0.2.1"}}}`
}

func serveFake(h *Handler, method, path, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	return w
}

const recZone = `$TTL 300
@    IN SOA ns1.rec.test. admin.rec.test. 1 3600 600 86400 300
@    IN NS  ns1
ns1  IN A   192.0.2.1
www  IN A   192.0.2.10
`

// TestRecordHandlersAgainstFakeNamed runs the record endpoints through
// ServeHTTP against a fake named: DNS (UPDATE, queries, AXFR) and, where
// a refusal needs explaining, its control channel.
func TestRecordHandlersAgainstFakeNamed(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		contains                 string
	}{
		{"add", "POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"192.0.2.7"}`, nil, 201, `"serial":2`},
		{"add MX", "POST", "/api/v1/zones/rec.test/records", `{"name":"@","type":"MX","value":"ns1","priority":10}`, nil, 201, `"priority":10`},
		{"add SOA", "POST", "/api/v1/zones/rec.test/records", `{"name":"@","type":"SOA","value":"x"}`, nil, 409, "SOA record is maintained by named"},
		{"add invalid", "POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"not-an-address"}`, nil, 400, "invalid record"},
		{"add unknown field", "POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"192.0.2.7","color":"red"}`, nil, 400, "color"},
		{"add to a frozen zone", "POST", "/api/v1/zones/frozen.test/records", `{"name":"api","type":"A","value":"192.0.2.7"}`, nil, 409, "is frozen"},
		{"update", "PUT", "/api/v1/zones/rec.test/records", `{"name":"www","type":"A","currentValue":"192.0.2.10","newValue":"192.0.2.11"}`, nil, 200, "Record updated"},
		{"update missing", "PUT", "/api/v1/zones/rec.test/records", `{"name":"www","type":"A","currentValue":"192.0.2.99","newValue":"192.0.2.11"}`, nil, 404, "not found in zone rec.test"},
		{"remove RRset", "DELETE", "/api/v1/zones/rec.test/records", `{"name":"www","type":"A"}`, nil, 200, "Record removed"},
		{"remove apex NS", "DELETE", "/api/v1/zones/rec.test/records", `{"name":"@","type":"NS"}`, nil, 409, "without name servers"},
		{"batch", "PATCH", "/api/v1/zones/rec.test/records", `{"changes":[{"op":"add","name":"t","type":"TXT","value":"hello"},{"op":"delete","name":"www","type":"A"}]}`, nil, 200, "2 changes applied"},
		{"batch empty", "PATCH", "/api/v1/zones/rec.test/records", `{"changes":[]}`, nil, 400, ""},
		{"list", "GET", "/api/v1/zones/rec.test/records", "", nil, 200, `"values":["192.0.2.10"]`},
		{"list by type", "GET", "/api/v1/zones/rec.test/records?type=NS", "", nil, 200, `"count":1`},
		{"list bad limit", "GET", "/api/v1/zones/rec.test/records?limit=0", "", nil, 400, "limit"},
		{"export", "GET", "/api/v1/zones/rec.test/export", "", nil, 200, "$ORIGIN rec.test."},
		{"stale If-Match", "POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"192.0.2.7"}`, map[string]string{"If-Match": `"7"`}, 412, "zone changed since it was read"},
		{"bad If-Match", "POST", "/api/v1/zones/rec.test/records", `{"name":"api","type":"A","value":"192.0.2.7"}`, map[string]string{"If-Match": "soon"}, 400, "If-Match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := fakeNamedHandler(t, fakeNamedAnswers{"zonestatus frozen.test": {Text: testdata(t, "zonestatus_frozen.txt")}})
			h.conf.DNSServer = dnstest.NewServer(t, map[string]string{"rec.test": recZone, "frozen.test": strings.ReplaceAll(recZone, "rec.test", "frozen.test")}, "frozen.test").Addr
			w := httptest.NewRecorder()
			r := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tc.hdr {
				r.Header.Set(k, v)
			}
			_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.contains) {
				t.Fatalf("%s %s: %d %s; want %d containing %q", tc.method, tc.path, w.Code, w.Body, tc.status, tc.contains)
			}
		})
	}
}
