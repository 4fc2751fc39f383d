package powerdns

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// TestServerListsWithoutHostCheck: mounted without the host's checks
// (AllowPrimaries, AllowNotify), naming masters or ALSO-NOTIFY servers is
// auth.ServerPolicy's decision with no networks allowed, in its words: the
// server action is needed. (This API had a second copy of that policy,
// which answered "may not name masters: …, which needs the server
// action" and did not say which option would allow it.)
func TestServerListsWithoutHostCheck(t *testing.T) {
	identity := func(scope string) *auth.Identity {
		s, err := auth.ParseScope(scope)
		if err != nil {
			t.Fatal(err)
		}
		g, err := s.Compile()
		if err != nil {
			t.Fatal(err)
		}
		return &auth.Identity{ID: "tok", Grant: g}
	}
	a := &API{}
	masters := func(w http.ResponseWriter, r *http.Request) bool {
		return a.allowMasters(w, r, []string{"198.51.100.1"})
	}
	notify := func(w http.ResponseWriter, r *http.Request) bool {
		return a.allowNotify(w, r, []string{"198.51.100.1"})
	}
	for _, tc := range []struct {
		scope string
		check func(http.ResponseWriter, *http.Request) bool
		want  string // "" allowed
	}{
		{"actions=zones", masters, "tok may not name primaries: they make named transfer from the addresses given, which needs the server action (an identity limited neither to some zones nor to some records), as an import by AXFR does; this server allows no primaries to identities without it (allowed_primaries is empty)"},
		{"actions=zones", notify, "tok may not name a zone's also-notify servers: they make named send NOTIFY messages to the addresses given, which needs the server action"},
		{"actions=zones,server", masters, ""},
		{"actions=zones,server", notify, ""},
	} {
		r := httptest.NewRequest("PUT", Prefix+"/zones/a.test.", nil)
		r = r.WithContext(auth.WithIdentity(r.Context(), identity(tc.scope)))
		w := httptest.NewRecorder()
		ok := tc.check(w, r)
		switch {
		case tc.want == "" && !ok:
			t.Errorf("%s: refused: %d %s", tc.scope, w.Code, w.Body)
		case tc.want != "" && (ok || w.Code != 403 || !strings.Contains(w.Body.String(), tc.want)):
			t.Errorf("%s: ok %v, %d %s; want 403 saying %q", tc.scope, ok, w.Code, w.Body, tc.want)
		}
	}
}
