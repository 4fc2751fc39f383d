package powerdns

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// namedServerStats is a part of what named's statistics channel answers
// at /json/v1/server (BIND 9.18), read from a real named.
const namedServerStats = `{"json-stats-version":"1.7","boot-time":"2026-11-27T16:20:00.000Z",
"opcodes":{"QUERY":11,"IQUERY":0,"NOTIFY":3,"UPDATE":2},
"rcodes":{"NOERROR":9,"FORMERR":0,"SERVFAIL":0,"NXDOMAIN":1,"REFUSED":4,"BADCOOKIE":0},
"qtypes":{"A":2,"SOA":6,"AXFR":3},
"nsstats":{"Requestv4":13,"ReqTCP":11,"Response":10,"QryUDP":2,"QryTCP":6,"UpdateDone":2,"UpdateRej":1,"QryNXDOMAIN":1}}`

// TestStatisticsPowerDNSNames: GET /statistics gives, besides named's
// rndc status fields and uptime, PowerDNS's statistics where named's
// statistics channel counts the same thing, under PowerDNS's names and
// item types (test_read_statistics reads response-by-qtype and
// response-by-rcode as MapStatisticItem, "No Error" among the rcodes);
// ?statistic= keeps one of them, map items included. Before, only rndc
// status fields and uptime were listed.
func TestStatisticsPowerDNSNames(t *testing.T) {
	a := &API{Service: newFakeNamed(t), ServerStatistics: func(context.Context) ([]byte, error) { return []byte(namedServerStats), nil }}
	get := func(q string) (int, map[string]json.RawMessage, map[string]string) {
		t.Helper()
		w := httptest.NewRecorder()
		a.statistics(w, httptest.NewRequest(http.MethodGet, Prefix+"/statistics"+q, nil), "")
		var list []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &list)
		vals, types := map[string]json.RawMessage{}, map[string]string{}
		for _, it := range list {
			vals[it.Name], types[it.Name] = it.Value, it.Type
		}
		return w.Code, vals, types
	}
	code, vals, types := get("")
	if code != 200 {
		t.Fatalf("GET statistics: %d", code)
	}
	for name, want := range map[string]string{
		"udp-queries": `"2"`, "tcp-queries": `"6"`, "noerror-packets": `"9"`, "nxdomain-packets": `"1"`,
		"servfail-packets": `"0"`, "dnsupdate-queries": `"2"`, "dnsupdate-answers": `"2"`, "dnsupdate-refused": `"1"`,
		"incoming-notifications": `"3"`,
	} {
		if got := string(vals[name]); got != want || types[name] != "StatisticItem" {
			t.Errorf("%s = %s %s, want StatisticItem %s", name, types[name], got, want)
		}
	}
	if got := string(vals["response-by-qtype"]); types["response-by-qtype"] != "MapStatisticItem" ||
		got != `[{"name":"A","value":"2"},{"name":"AXFR","value":"3"},{"name":"SOA","value":"6"}]` {
		t.Errorf("response-by-qtype = %s %s", types["response-by-qtype"], got)
	}
	if got := string(vals["response-by-rcode"]); types["response-by-rcode"] != "MapStatisticItem" ||
		got != `[{"name":"No Error","value":"9"},{"name":"Non-Existent domain","value":"1"},{"name":"Query Refused","value":"4"}]` {
		t.Errorf("response-by-rcode = %s %s", types["response-by-rcode"], got)
	}
	if _, ok := vals["response-sizes"]; ok {
		t.Error("response-sizes listed: named counts sizes only in ranges")
	}
	if code, vals, _ := get("?statistic=response-by-rcode"); code != 200 || len(vals) != 1 || !strings.Contains(string(vals["response-by-rcode"]), "No Error") {
		t.Errorf("?statistic=response-by-rcode: %d %v", code, vals)
	}
	if code, vals, _ := get("?statistic=udp-queries"); code != 200 || len(vals) != 1 || string(vals["udp-queries"]) != `"2"` {
		t.Errorf("?statistic=udp-queries: %d %v", code, vals)
	}
	// Without a statistics channel (or when it fails), the rest stays.
	a.ServerStatistics = nil
	if code, vals, _ := get(""); code != 200 || vals["udp-queries"] != nil {
		t.Errorf("without the channel: %d %v", code, vals)
	}
}
