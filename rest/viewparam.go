package rest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// RequestView reads the request's ?view= parameter: "" when it has none.
// An empty, repeated or invalid value is an error (400). Moved from
// module/views.go.
func RequestView(r *http.Request) (string, error) {
	if !strings.Contains(r.URL.RawQuery, "view") {
		return "", nil
	}
	vs, ok := r.URL.Query()["view"]
	switch {
	case !ok:
		return "", nil
	case len(vs) != 1:
		return "", fmt.Errorf("view is given %d times; give it once", len(vs))
	case vs[0] == "":
		return "", fmt.Errorf("view is empty; name a view, or leave the parameter out")
	}
	if err := zonemodel.CheckViewName(vs[0]); err != nil {
		return "", err
	}
	return vs[0], nil
}
