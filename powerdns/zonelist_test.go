package powerdns

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// wholeZones lists its zones at once (ListZones only); the other
// methods of Service are not called by the zone list.
type wholeZones struct {
	Service
	zones []ZoneInfo
}

func (s *wholeZones) ListZones(context.Context) ([]ZoneInfo, error) { return s.zones, nil }

func (s *wholeZones) SideFiles() (frontend.SideFiles, error) { return nil, nil }

// pagedZones lists them a page at a time too.
type pagedZones struct {
	wholeZones
	t      *testing.T
	pages  int
	wholes int
}

func (s *pagedZones) ListZones(ctx context.Context) ([]ZoneInfo, error) {
	s.wholes++
	return s.wholeZones.ListZones(ctx)
}

func (s *pagedZones) ZonesPage(_ context.Context, cursor string, limit int) ([]ZoneInfo, string, error) {
	s.pages++
	i := 0
	for i < len(s.zones) && cursor != "" && s.zones[i].Name <= cursor {
		i++
	}
	end := min(i+limit, len(s.zones))
	next := ""
	if end < len(s.zones) {
		next = s.zones[end-1].Name
	}
	return s.zones[i:end], next, nil
}

// The zone list of a service that pages it is streamed a page at a time,
// in the very bytes of the list answered at once.
func TestZoneListStreamed(t *testing.T) {
	for _, n := range []int{0, 1, zoneListPage, 2*zoneListPage + 500} {
		zones := make([]ZoneInfo, n)
		for i := range zones {
			zones[i] = ZoneInfo{Name: fmt.Sprintf("z%05d.test", i), Type: "primary", Serial: uint32(i), HasSerial: i%3 != 0}
		}
		list := func(s Service) string {
			w := httptest.NewRecorder()
			(&API{Service: s}).listZones(w, httptest.NewRequest("GET", "/api/v1/servers/localhost/zones", nil), "")
			if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%d zones: status %d, %q", n, w.Code, w.Header().Get("Content-Type"))
			}
			return w.Body.String()
		}
		whole := list(&wholeZones{zones: zones})
		p := &pagedZones{wholeZones: wholeZones{zones: zones}, t: t}
		paged := list(p)
		if paged != whole {
			t.Errorf("%d zones: the streamed list differs:\n%.300s\nwant\n%.300s", n, paged, whole)
		}
		if want := max(1, (n+zoneListPage-1)/zoneListPage); p.pages != want || p.wholes != 0 {
			t.Errorf("%d zones: %d pages asked (want %d), %d whole lists", n, p.pages, want, p.wholes)
		}
	}
}
