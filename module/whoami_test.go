package module

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
)

// TestWhoami answers each token's identity and grants, whatever its
// scope (a records-only token may ask too), and 401 without a token.
func TestWhoami(t *testing.T) {
	h, _, tok := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
		"admin":    "",
		"reader":   "actions=read",
		"acme":     "actions=records zones=example.com names=_acme-challenge.* types=TXT",
		"operator": "actions=read,records,zones,server",
	})
	cases := []struct {
		name    string
		actions []string
		server  bool
		scopes  int
	}{
		{"admin", []string{"read", "records", "zones", "server"}, true, 0},
		{"reader", []string{"read"}, false, 1},
		{"acme", []string{"records"}, false, 1},
		{"operator", []string{"read", "records", "zones", "server"}, true, 1},
	}
	for _, c := range cases {
		w := serveAs(h, tok[c.name], http.MethodGet, "/api/v1/auth/whoami", "")
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.name, w.Code, w.Body)
		}
		var b struct {
			ID      string           `json:"id"`
			Mode    string           `json:"mode"`
			Actions []string         `json:"actions"`
			Server  bool             `json:"server"`
			Scopes  []map[string]any `json:"scopes"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		if b.ID != "static:"+c.name || b.Mode != "static" || !reflect.DeepEqual(b.Actions, c.actions) || b.Server != c.server || len(b.Scopes) != c.scopes {
			t.Errorf("%s: got %s", c.name, w.Body)
		}
	}
	if w := serveAs(h, "", http.MethodGet, "/api/v1/auth/whoami", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("without a token: %d %s, want 401", w.Code, w.Body)
	}
}
