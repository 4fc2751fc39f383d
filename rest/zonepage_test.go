package rest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// randomZonePage is a page of a zone list with what its fields may hold:
// names with characters encoding/json escapes (quotes, backslashes,
// control characters, <, > and &, U+2028, invalid UTF-8), created times
// in other zones and with nanoseconds, or none, each optional field set
// or not, nil slices.
func randomZonePage(r *rand.Rand) apitypes.ZonePage {
	odd := []string{"", "a", "example.com", "xn--bcher-kva.example", `q"uote.test`, `back\slash.test`, "tab\t.test", "nl\n.test",
		"nul\x00.test", "bell\x07.test", "<b>&amp;.test", "\u2028\u2029.test", "caf\u00e9.test", "bad\xff\xfe.test", "\x7f.test", ".", "_default", "internal", "nzd", "named.conf", "api"}
	str := func() string {
		if r.IntN(3) > 0 {
			return fmt.Sprintf("z%06d.scale", r.IntN(1_000_000))
		}
		return odd[r.IntN(len(odd))]
	}
	zones := []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("X", -(23*3600 + 59*60)), time.FixedZone("Y", 5*3600+30*60), time.FixedZone("Z", 23*3600+59*60+59)}
	n := r.IntN(12)
	p := apitypes.ZonePage{Count: n, Total: r.IntN(1 << 40), NextCursor: []string{"", str() + "@" + str()}[r.IntN(2)]}
	if r.IntN(8) > 0 {
		p.Zones, p.Items = make([]string, n), make([]apitypes.ZoneEntry, n)
	}
	for i := range len(p.Items) {
		e := apitypes.ZoneEntry{Name: str(), Type: str()}
		if r.IntN(3) > 0 {
			e.Created = time.Unix(r.Int64N(253402300799), []int64{0, 1, 120_000_000, r.Int64N(1e9)}[r.IntN(4)]).In(zones[r.IntN(len(zones))])
		}
		if r.IntN(2) == 0 {
			e.View = str()
		}
		if r.IntN(2) == 0 {
			m := r.IntN(2) == 0
			e.Managed = &m
		}
		if r.IntN(2) == 0 {
			e.Source = str()
		}
		if r.IntN(2) == 0 {
			s := []uint32{0, 1, 2026112801, 1<<32 - 1}[r.IntN(4)]
			e.Serial = &s
		}
		p.Zones[i], p.Items[i] = e.Name, e
	}
	return p
}

// A page of a zone list is written byte for byte as WriteJSON (its
// json.Marshal) writes it: status, headers and body, for random pages,
// and for pages whose created time json.Marshal refuses (a 500 both
// ways). writeZonePage did not exist before: the lists answered through
// WriteJSON, whose reflection was most of an all=true page's CPU.
func TestZonePageAsWriteJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	check := func(p apitypes.ZonePage) {
		t.Helper()
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		WriteJSON(want, 200, p)
		writeZonePage(got, &p)
		if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) || fmt.Sprint(got.Header()) != fmt.Sprint(want.Header()) {
			t.Fatalf("page %+v:\nwrote %d %v %s\nwant  %d %v %s", p, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
		}
	}
	for range 3000 {
		check(randomZonePage(r))
	}
	for _, c := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.FixedZone("", 24*3600)), time.Date(2026, 11, 28, 0, 0, 0, 0, time.FixedZone("", -24*3600-60)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", 23*3600+59*60)), time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC)} {
		check(apitypes.ZonePage{Zones: []string{"a.test", "b.test"}, Count: 2, Items: []apitypes.ZoneEntry{{Name: "a.test", Type: "primary"}, {Name: "b.test", Type: "primary", Created: c}}})
	}
}
